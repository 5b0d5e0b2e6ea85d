import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { E2E_USERS, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// An approver comments on a line of a plan's text; when the agent revises the plan, the comment
// shows on the new version at the line with the same text, and a comment whose line changed shows
// as outdated. Comments can be resolved. A viewer reads them but cannot add one.

test("an approver comments on plan lines; the comments carry over to the revision; a viewer only reads", async ({
  page,
  baseURL,
  browser,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-plan-comments"));
  const base = `e2e-comments-${randomUUID()}`;
  const tag = randomUUID().slice(0, 6);
  const frame = (f: Record<string, unknown>) => ({ v: 1, id: randomUUID(), ...f });
  const propose = (n: number, lines: string[]) =>
    worker.send(
      frame({
        type: "plan.propose",
        plan: `${base}:${n}`,
        ...(n > 1 ? { supersedes: `${base}:${n - 1}` } : {}),
        title: `Comments v${n} ${tag}`,
        body: lines.join("\n"),
        items: [{ content: "Extract" }],
      }),
    );
  await propose(1, ["# Extraction", "Start on 4 GPUs.", "Upload with 100 in flight.", "Report."]);

  await page.goto("/plans");
  await page
    .getByRole("link", { name: `Comments v1 ${tag}` })
    .first()
    .click();
  const lines = page.getByRole("list", { name: "Plan lines" });
  await lines.getByRole("button", { name: "Add a comment on line 2" }).click();
  await lines
    .getByRole("textbox", { name: "Comment on line 2", exact: true })
    .fill("Which GPUs? Use 0-3.");
  await lines.getByRole("button", { name: "Add comment" }).click();
  await expect(lines.locator('[data-line="2"]')).toContainText("Which GPUs? Use 0-3.");
  await lines.getByRole("button", { name: "Add a comment on line 3" }).click();
  await lines
    .getByRole("textbox", { name: "Comment on line 3", exact: true })
    .fill("Too many; 50.");
  await lines.getByRole("button", { name: "Add comment" }).click();
  await expect(lines.locator('[data-line="3"]')).toContainText("Too many; 50.");
  await expect(lines.locator('[data-line="3"]')).toContainText(E2E_USERS.approver.name);
  const v1Url = page.url();

  // The agent revises: line 2 moves down one, line 3 changes.
  await propose(2, [
    "# Extraction",
    "Check disk space.",
    "Start on 4 GPUs.",
    "Upload with 50 in flight.",
    "Report.",
  ]);
  await page.goto("/plans");
  await page
    .getByRole("link", { name: `Comments v2 ${tag}` })
    .first()
    .click();
  const v2Lines = page.getByRole("list", { name: "Plan lines" });
  const carried = v2Lines.locator('[data-line="3"] [data-comment-state="open"]');
  await expect(carried).toContainText("Which GPUs? Use 0-3.");
  await expect(carried).toContainText("from v1, line 2");
  const outdated = page.locator('[data-comment-state="outdated"]');
  await expect(outdated).toContainText("Too many; 50.");
  await expect(outdated).toContainText("Upload with 100 in flight.");
  await carried.getByRole("button", { name: "Resolve" }).click();
  await expect(v2Lines.locator('[data-line="3"] [data-comment-state="resolved"]')).toContainText(
    "resolved",
  );

  // A viewer sees the comments (resolved on v1 too) without the comment buttons.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await context.newPage();
  await signInAs(viewer, E2E_USERS.viewer, new URL(v1Url).pathname);
  const viewerLines = viewer.getByRole("list", { name: "Plan lines" });
  await expect(viewerLines.locator('[data-line="2"]')).toContainText("Which GPUs? Use 0-3.");
  await expect(viewerLines.locator('[data-line="2"] [data-comment-state="resolved"]')).toHaveCount(
    1,
  );
  await expect(viewerLines.getByRole("button", { name: /^Add a comment on line/ })).toHaveCount(0);
  await expect(viewerLines.getByRole("button", { name: /Resolve|Reopen/ })).toHaveCount(0);
  const planId = new URL(v1Url).pathname.split("/").pop();
  const refused = await viewer.request.post(`/api/plans/by-id/${planId}/comments`, {
    data: { line: 1, body: "x" },
    headers: { origin: baseURL! },
  });
  expect(refused.status()).toBe(403);
  await context.close();

  // Bad input gets a specific 400.
  const bad = await page.request.post(`/api/plans/by-id/${planId}/comments`, {
    data: { line: 99, body: "x" },
    headers: { origin: baseURL! },
  });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error).toMatchObject({ code: "invalid_body", message: /no line 99/ });

  // Leave no pending plan behind for later specs.
  for (const n of [1, 2]) {
    const id = (await (await page.request.get("/api/plans?limit=500")).json()).plans.find(
      (p: { title: string }) => p.title === `Comments v${n} ${tag}`,
    ).id;
    await page.request.post(`/api/plans/by-id/${id}/decision`, {
      data: { decision: "rejected" },
      headers: { origin: baseURL! },
    });
  }
  worker.close();
});
