import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The top bar's global search as a person uses it: `/` focuses the box from anywhere, typing
// lists runs and sessions (found by a todo's text) in groups, arrows and Enter open a hit, and a
// query matching nothing says so. Seeded through /ws/ingest like a worker.

test("`/` focuses the search; runs and sessions are found and opened by keyboard", async ({
  page,
  baseURL,
}) => {
  const tag = `gs${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken(`${tag}-host`));
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: `${tag}-a`,
    name: `${tag} falcon sweep`,
    kind: "benchmark",
    tags: [tag],
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "session.todos",
    session: `${tag}-s`,
    source: "claude-code",
    title: `${tag} agent`,
    seq: 0,
    ts: Date.now(),
    items: [{ content: `Port the ${tag} pelican loader`, status: "in_progress" }],
  });
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/runs");
  const box = page.getByRole("combobox", { name: /Search runs/ });
  // The `/` shortcut works once the page is hydrated: a person who pressed it earlier presses again.
  await expect(async () => {
    await page.locator("body").press("/");
    await expect(box).toBeFocused({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  await box.fill(`${tag} falcon`);
  const list = page.getByRole("listbox", { name: "Search results" });
  await expect(list.getByRole("group", { name: "Runs" }).getByRole("option")).toHaveText([
    new RegExp(`${tag} falcon sweep`),
  ]);
  await box.press("Enter");
  await expect(page).toHaveURL(/\/runs\/\d+$/);
  await expect(page.getByRole("heading", { name: `${tag} falcon sweep` })).toBeVisible();

  // A session by the text of a todo; ArrowDown then Enter opens it.
  await page.locator("body").press("/");
  await box.fill(`${tag} pelican`);
  const session = list.getByRole("group", { name: "Sessions" }).getByRole("option");
  await expect(session).toContainText(`todo: Port the ${tag} pelican loader`);
  await box.press("ArrowDown");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/sessions\/\d+$/);

  await page.locator("body").press("/");
  await box.fill(`${tag}-nothing-here`);
  await expect(list.getByRole("status")).toHaveText(`Nothing matches “${tag}-nothing-here”.`);
  await box.press("Escape");
  await expect(list).toBeHidden();
});

test("the search box fits the top bar at 390 px", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto("/");
  const box = page.getByRole("combobox", { name: /Search runs/ });
  await expect(box).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("at 390 px the results list lies inside the screen (not cut at its left edge)", async ({
  page,
  baseURL,
}) => {
  const tag = `gsp${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken(`${tag}-host`));
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: `${tag}-a`,
    name: `${tag} heron throughput sweep with a long name`,
    kind: "benchmark",
  });
  worker.close();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const box = page.getByRole("combobox", { name: /Search runs/ });
  await box.fill(`${tag} heron`);
  const list = page.getByRole("listbox", { name: "Search results" });
  await expect(list.getByRole("option")).toHaveCount(1);
  const rect = await list.boundingBox();
  expect(rect).not.toBeNull();
  expect(rect!.x).toBeGreaterThanOrEqual(0);
  expect(rect!.x + rect!.width).toBeLessThanOrEqual(390);
  expect(rect!.width).toBeGreaterThan(300);
});

test("a long checkpoint URI is listed by its last segment, the URI cut at its start", async ({
  page,
  baseURL,
}) => {
  const tag = `gsc${randomUUID().slice(0, 8)}`;
  const uri = `s3://team-drafters-checkpoints/experiments/${tag}/qwen3-235b-a22b-eagle3-long-context-sweep/global_step_12000`;
  const worker = await connectWorker(baseURL!, createToken(`${tag}-host`));
  const run = `${tag}-train`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `${tag} drafter`,
    kind: "training",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.artifact",
    run,
    kind: "checkpoint",
    uri,
    step: 12000,
  });
  worker.close();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.getByRole("combobox", { name: /Search runs/ }).fill(tag);
  const list = page.getByRole("listbox", { name: "Search results" });
  const hit = list.getByRole("group", { name: "Checkpoints" }).getByRole("option");
  await expect(hit).toHaveCount(1);
  await expect(hit).toContainText("global_step_12000");
  const detail = hit.locator("[data-cut=start]");
  await expect(detail).toHaveAttribute("title", uri);
  // The URI's end (the step) is what shows: its right edge lies inside the list, its start is cut.
  const [box, end] = await Promise.all([
    detail.boundingBox(),
    detail.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const rects = [...range.getClientRects()];
      return {
        right: Math.max(...rects.map((r) => r.right)),
        left: Math.min(...rects.map((r) => r.left)),
      };
    }),
  ]);
  expect(box).not.toBeNull();
  expect(end.right).toBeLessThanOrEqual(box!.x + box!.width + 1);
  expect(end.left).toBeLessThan(box!.x);
});
