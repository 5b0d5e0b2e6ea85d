import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { createToken } from "./support";

// The inbox on a phone: two agents on two hosts each wait on a Bash command (opened through the
// public API as the hooks do); both show in one queue with their context and the top bar's count
// is right at first paint; one is approved with the keyboard (a), the other denied with a message
// from the buttons, each after the few seconds to undo; the agents' long-polls receive them.

test.use({ viewport: { width: 390, height: 844 } });

test("two agents' permissions in one inbox at 390 px: approve (keyboard) and deny with a message, each with undo first", async ({
  page,
  baseURL,
  request,
}) => {
  const tag = randomUUID().slice(0, 6);
  const hosts = [`e2e-inbox-a-${tag}`, `e2e-inbox-b-${tag}`];
  const tokens = hosts.map((h) => createToken(h));
  const open = async (i: number, command: string) => {
    const res = await request.post(`${baseURL}/api/inbox`, {
      headers: { authorization: `Bearer ${tokens[i]}` },
      data: {
        key: `e2e:${tag}:${i}`,
        kind: "permission",
        agent: i ? "opencode" : "claude-code",
        toolName: "Bash",
        summary: command,
        input: { command },
        project: "pitwall",
        gitBranch: "main",
        cwd: "/home/ada/pitwall",
        expiresInS: 600,
      },
    });
    expect(res.status()).toBe(201);
    return ((await res.json()) as { id: number }).id;
  };
  const first = await open(0, `pytest -x ${tag}`);
  const second = await open(1, `rm -rf build-${tag}`);
  const decisionOf = async (i: number, id: number) =>
    (await (
      await request.get(`${baseURL}/api/inbox/${id}/decision`, {
        headers: { authorization: `Bearer ${tokens[i]}` },
      })
    ).json()) as { status: string; decision: { decision: string; message: string | null } | null };

  await page.goto("/inbox");
  // The count is in the server-rendered top bar (never a dash).
  await expect(page.getByTestId("inbox-count")).toHaveAccessibleName(/Inbox: \d+ waiting/);
  const mine = page.getByTestId("inbox-item").filter({ hasText: tag });
  await expect(mine).toHaveCount(2);
  const a = mine.filter({ hasText: `pytest -x ${tag}` });
  const b = mine.filter({ hasText: `rm -rf build-${tag}` });
  await expect(a).toContainText(`host ${hosts[0]}`);
  await expect(a).toContainText("claude-code");
  await expect(b).toContainText(`host ${hosts[1]}`);
  await expect(b).toContainText("opencode");
  await expect(a).toContainText("branch main");
  await expect(a).toContainText(/waiting \d+ s/);
  // Nothing wider than the phone; the buttons are touch-sized.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const approve = a.getByRole("button", { name: "Approve" });
  expect((await approve.boundingBox())!.height).toBeGreaterThanOrEqual(44);

  // Keyboard: select the item, then `a`; the undo bar shows, then it is sent.
  await a.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("a");
  await expect(page.getByTestId("inbox-undo")).toContainText("Approve");
  await expect(page.getByTestId("inbox-notice")).toContainText("sent", { timeout: 10_000 });
  await expect(a).toHaveCount(0);
  expect(await decisionOf(0, first)).toMatchObject({
    status: "decided",
    decision: { decision: "allow" },
  });

  // Deny with a message from the buttons; undo once, then let it go.
  await b.getByRole("button", { name: "Deny…" }).click();
  await b.getByLabel("Why (the agent reads this)").fill("not on the shared box");
  await b.getByRole("button", { name: "Deny" }).click();
  await page.getByTestId("inbox-undo").getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("inbox-undo")).toHaveCount(0);
  expect((await decisionOf(1, second)).status).toBe("waiting");
  await b.getByRole("button", { name: "Deny…" }).click();
  await b.getByLabel("Why (the agent reads this)").fill("not on the shared box");
  await b.getByRole("button", { name: "Deny" }).click();
  await page.getByTestId("inbox-undo").getByRole("button", { name: "Send now" }).click();
  await expect(b).toHaveCount(0);
  expect(await decisionOf(1, second)).toMatchObject({
    status: "decided",
    decision: { decision: "deny", message: "not on the shared box" },
  });
});

test("a plan approved with notes from the inbox at 390 px: the proposer's decision carries the notes", async ({
  page,
  baseURL,
  request,
}) => {
  const tag = randomUUID().slice(0, 6);
  const token = createToken(`e2e-inbox-plan-${tag}`);
  const key = `e2e:${tag}:plan`;
  const ingest = await request.post(`${baseURL}/api/ingest`, {
    headers: { authorization: `Bearer ${token}` },
    data: [
      {
        v: 1,
        id: randomUUID(),
        type: "plan.propose",
        plan: key,
        title: `Upload sweep ${tag}`,
        body: "## Steps\n\n1. Upload the **shards** of `kpro5`\n2. Verify the checksums",
        items: [{ content: "Upload the shards" }],
        expiresInS: 600,
      },
    ],
  });
  expect(ingest.status()).toBe(200);
  await page.goto("/inbox");
  const item = page.getByTestId("inbox-item").filter({ hasText: `Upload sweep ${tag}` });
  // The plan's markdown is rendered (a heading, an ordered list, bold), not shown as source.
  const plan = item.getByRole("region", { name: "Plan" });
  await expect(plan.getByRole("heading", { name: "Steps" })).toBeVisible();
  await expect(plan.locator("ol > li")).toHaveCount(2);
  await expect(plan.locator("strong")).toHaveText("shards");
  await expect(plan).not.toContainText("**");
  await item.getByRole("button", { name: "Approve with notes…" }).click();
  await item
    .getByLabel("Notes for the agent (it reads them with the approval)")
    .fill("at most 100 uploads in flight");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await item.getByRole("button", { name: "Approve with these notes" }).click();
  await page.getByTestId("inbox-undo").getByRole("button", { name: "Send now" }).click();
  await expect(item).toHaveCount(0);
  const got = (await (
    await request.get(`${baseURL}/api/plans/${encodeURIComponent(key)}/decision`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { status: string; decision: { comment: string } };
  expect(got).toMatchObject({
    status: "approved",
    decision: { comment: "at most 100 uploads in flight" },
  });
});
