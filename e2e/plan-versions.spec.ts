import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// A plan that revises another (`supersedes`) shows what changed since that version: the markdown's
// line diff and the items added, removed and changed, with a link to the previous version — on its
// page and, folded, in its inbox item.

test("a revised plan shows its diff against the previous version on its page and in the inbox", async ({
  page,
  baseURL,
}) => {
  const token = createToken("e2e-plan-versions");
  const worker = await connectWorker(baseURL!, token);
  const session = `e2e-versions-${randomUUID()}`;
  const tag = randomUUID().slice(0, 6);
  const frame = (f: Record<string, unknown>) => ({ v: 1, id: randomUUID(), ...f });
  await worker.send(
    frame({
      type: "session.activity",
      session,
      source: "claude-code",
      state: "working",
      ts: Date.now(),
      title: `versions ${tag}`,
    }),
  );
  const v1Body = ["# Decode sweep", "", "Warm up the server.", "Sweep C=1..64.", "Report tok/s."];
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:1`,
      session,
      title: `Sweep v1 ${tag}`,
      body: v1Body.join("\n"),
      items: [
        { content: "Warm up the server" },
        { content: "Sweep C=1..64", priority: "high" },
        { content: "Delete the old results" },
        { content: "Report tok/s" },
      ],
    }),
  );
  const v1 = (await (await page.request.get("/api/plans?limit=500")).json()).plans.find(
    (p: { title: string }) => p.title === `Sweep v1 ${tag}`,
  ) as { id: number };
  const decided = await page.request.post(`/api/plans/by-id/${v1.id}/decision`, {
    data: { decision: "changes_requested", comment: "go up to C=100 and upload" },
    headers: { origin: baseURL! },
  });
  expect(decided.status()).toBe(200);
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:2`,
      session,
      supersedes: `${session}:plan:1`,
      title: `Sweep v2 ${tag}`,
      body: [...v1Body.slice(0, 3), "Sweep C=1..100.", "Report tok/s.", "Upload to S3."].join("\n"),
      items: [
        { content: "Warm up the server" },
        { content: "Sweep C=1..100", priority: "high" },
        { content: "Report tok/s" },
        { content: "Upload to S3" },
      ],
    }),
  );

  // In the inbox: the revision's item folds its diff away until opened.
  await page.goto("/inbox");
  const entry = page.getByRole("listitem").filter({ hasText: `Sweep v2 ${tag}` });
  await entry.getByText("Changes since the previous version").click();
  const inboxDiff = entry.getByRole("region", { name: "Plan text diff" });
  await expect(inboxDiff.locator('[data-diff="removed"]')).toHaveText([/Sweep C=1\.\.64\./]);
  await expect(inboxDiff.locator('[data-diff="added"]')).toHaveText([
    /Sweep C=1\.\.100\./,
    /Upload to S3\./,
  ]);
  await entry.getByRole("link", { name: "Open the plan page" }).click();

  // On the plan page: the same diff, the items' changes, and a link back to v1.
  await expect(page).toHaveURL(/\/plans\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: `Sweep v2 ${tag}` })).toBeVisible();
  const v2Id = Number(new URL(page.url()).pathname.split("/").pop());
  const diff = page.getByRole("region", { name: "Changes since the previous version" });
  await expect(diff.getByRole("region", { name: "Plan text diff" })).toContainText(
    "Warm up the server.",
  );
  await expect(diff.locator('[data-diff="removed"]')).toHaveCount(1);
  await expect(diff.locator('[data-diff="added"]')).toHaveCount(2);
  const items = diff.getByRole("list", { name: "Items against the previous version" });
  await expect(items.locator('[data-change="changed"]')).toContainText([
    /Sweep C=1\.\.64\s*→\s*Sweep C=1\.\.100/,
  ]);
  await expect(items.locator('[data-change="removed"]')).toContainText(["Delete the old results"]);
  await expect(items.locator('[data-change="added"]')).toContainText(["Upload to S3"]);
  await expect(items.locator('[data-change="same"]')).toHaveCount(2);
  await expect(diff).toContainText("1 added, 1 removed, 1 changed");
  await diff.getByRole("link", { name: "the previous version" }).click();
  await expect(page).toHaveURL(new RegExp(`/plans/${v1.id}$`));
  await expect(page.getByRole("heading", { level: 1, name: `Sweep v1 ${tag}` })).toBeVisible();
  // A first version has nothing to compare with.
  await expect(
    page.getByRole("region", { name: "Changes since the previous version" }),
  ).toHaveCount(0);
  // Leave no pending plan behind for later specs.
  const rejected = await page.request.post(`/api/plans/by-id/${v2Id}/decision`, {
    data: { decision: "rejected" },
    headers: { origin: baseURL! },
  });
  expect(rejected.status()).toBe(200);
  worker.close();
});
