import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { E2E_USERS, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// A live agent session's plan versions, as the team handles them: the waiting plan shows on the
// overview (which agent, host, session, project, since when), an approver decides it from the
// plans list (changes requested with a comment, then the revision approved), and the session
// page shows both versions with their decisions inline in its timeline. A viewer gets no actions.

test("a waiting plan is on the overview, is decided from the plans list, and its versions show in the session's timeline", async ({
  page,
  baseURL,
  browser,
}) => {
  const token = createToken("e2e-agents");
  const worker = await connectWorker(baseURL!, token);
  const session = `e2e-cc-${randomUUID()}`;
  const tag = randomUUID().slice(0, 6);
  const title1 = `Decode sweep plan ${tag}`;
  const title2 = `Decode sweep plan ${tag}, with warm-up`;
  const frame = (f: Record<string, unknown>) => ({ v: 1, id: randomUUID(), ...f });
  await worker.send(
    frame({
      type: "session.activity",
      session,
      source: "claude-code",
      state: "working",
      ts: Date.now(),
      title: `Decode sweep ${tag}`,
      cwd: "/home/ada/src/pitwall",
      gitBranch: "bench-sweep",
    }),
  );
  await worker.send(
    frame({
      type: "session.todos",
      session,
      source: "claude-code",
      seq: 1,
      ts: Date.now(),
      items: [{ content: "Plan the decode sweep", status: "in_progress" }],
    }),
  );
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:1`,
      session,
      title: title1,
      items: [{ content: "Throughput C=1..64" }, { content: "Summarize" }],
    }),
  );

  // The overview says who waits: the agent, its host, session and project, since when; Decide links to the plan.
  await page.goto("/");
  const waiting = page
    .getByRole("list", { name: "Plans waiting for a decision" })
    .getByRole("listitem")
    .filter({ hasText: title1 });
  await expect(waiting).toContainText("Claude Code");
  await expect(waiting).toContainText("on e2e-agents");
  await expect(waiting).toContainText(`session Decode sweep ${tag}`);
  await expect(waiting).toContainText("project pitwall");
  await expect(waiting).toContainText(/waiting since (just now|\d+ s ago)/);
  await expect(waiting.getByRole("link", { name: `Decide “${title1}”` })).toHaveAttribute(
    "href",
    /^\/plans\/\d+$/,
  );

  // From the plans list: Request changes needs a comment, then goes to the agent.
  await page.goto("/plans");
  const decide1 = page.getByRole("group", { name: `Decide “${title1}”` });
  await decide1.getByRole("button", { name: "Request changes" }).click();
  await decide1.getByRole("button", { name: "Send: request changes" }).click();
  await expect(decide1.getByRole("alert")).toContainText("a comment is required");
  await decide1.getByLabel(/Comment for the agent/).fill("Warm the server up first");
  await decide1.getByRole("button", { name: "Send: request changes" }).click();
  await expect(decide1).toHaveCount(0);
  await expect(page.getByRole("row", { name: new RegExp(title1) })).toContainText(
    "Changes requested",
  );

  // The agent revises; the revision arrives live and is approved inline.
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:2`,
      session,
      supersedes: `${session}:plan:1`,
      title: title2,
      items: [{ content: "Warm up" }, { content: "Throughput C=1..64" }],
    }),
  );
  const decide2 = page.getByRole("group", { name: `Decide “${title2}”` });
  await decide2.getByRole("button", { name: "Approve" }).click();
  await expect(decide2).toHaveCount(0);
  await expect(page.getByRole("row", { name: new RegExp(title2) })).toContainText("Approved");

  // The session page: v2 approved ← v2 proposed (revises v1) ← v1 changes requested with the comment ← v1 proposed.
  await page
    .getByRole("row", { name: new RegExp(title2) })
    .getByRole("link", { name: `Decode sweep ${tag}` })
    .click();
  // Its header names it and says where it stands live, as /sessions does.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Decode sweep ${tag}`);
  await expect(page.locator("dl [data-live-state]")).toHaveText("Working");
  await expect(page.getByTestId("session-feed")).toContainText("Live");
  const sessionUrl = page.url();
  const timeline = page
    .getByRole("list", { name: "Snapshots, newest first" })
    .locator(":scope > li");
  await expect(timeline).toHaveCount(5);
  await expect(timeline.nth(0)).toHaveAccessibleName("Plan v2 approved");
  await expect(timeline.nth(0)).toContainText(`by ${E2E_USERS.approver.name}`);
  await expect(timeline.nth(1)).toHaveAccessibleName("Plan v2 proposed");
  await expect(timeline.nth(1)).toContainText(title2);
  await expect(timeline.nth(1)).toContainText("revises v1");
  await expect(timeline.nth(2)).toHaveAccessibleName("Plan v1 changes requested");
  await expect(timeline.nth(2)).toContainText("“Warm the server up first”");
  await expect(timeline.nth(3)).toHaveAccessibleName("Plan v1 proposed");
  await expect(timeline.nth(4)).toHaveAccessibleName("Snapshot #1");

  // A viewer sees the waiting plan on /plans without the actions.
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:3`,
      session,
      title: `Viewer check ${tag}`,
      items: [{ content: "x" }],
    }),
  );
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewerPage = await context.newPage();
  await signInAs(viewerPage, E2E_USERS.viewer, "/plans");
  await expect(viewerPage.getByRole("link", { name: `Viewer check ${tag}` })).toBeVisible();
  await expect(viewerPage.getByRole("group", { name: /^Decide/ })).toHaveCount(0);
  await context.close();
  // Leave no pending plan behind for later specs.
  await page.goto("/plans");
  await page
    .getByRole("group", { name: `Decide “Viewer check ${tag}”` })
    .getByRole("button", { name: "Reject" })
    .click();
  await page
    .getByRole("group", { name: `Decide “Viewer check ${tag}”` })
    .getByRole("button", { name: "Send: reject" })
    .click();
  await expect(page.getByRole("group", { name: `Decide “Viewer check ${tag}”` })).toHaveCount(0);

  // Once the agent ends the session, its page no longer says "Live" but "Ended", as /sessions does.
  await worker.send(
    frame({
      type: "session.activity",
      session,
      source: "claude-code",
      state: "ended",
      ts: Date.now(),
    }),
  );
  worker.close();
  await page.goto(sessionUrl);
  await expect(page.locator("dl [data-live-state]")).toHaveText("Ended");
  const feed = page.getByTestId("session-feed");
  await expect(feed).toContainText("Ended");
  await expect(feed).not.toContainText("Live");
  await expect(feed).toHaveAttribute("title", /ended this session/);
  await page.goto("/sessions");
  await expect(
    page.getByRole("row", { name: new RegExp(`Decode sweep ${tag}`) }).locator("[data-live-state]"),
  ).toHaveText("Ended");
});
