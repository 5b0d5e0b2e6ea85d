import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The run table's column menu (issue 25): a config key found on the listed runs becomes a column
// with each run's value, a built-in column can be hidden, and the choice lives in the URL, so it
// survives a reload. The shared database holds other specs' runs: every read filters by a tag.

test("a config key chosen in the column menu shows as a column and survives a reload", async ({
  page,
  baseURL,
}) => {
  const tag = `cols-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken("e2e-run-columns"));
  const tps = [8, 4, 2];
  for (const tp of tps) {
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run: `${tag}-${tp}`,
      name: `Columns run tp${tp} ${tag}`,
      kind: "benchmark",
      tags: [tag],
      config: { model: "org/model-x", tp, serving: { quant: `fp${tp}` } },
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?tag=${tag}`);
  const table = page.getByRole("region", { name: "Runs" });
  await expect(table.getByRole("columnheader", { name: "Host" })).toBeVisible();
  await expect(table.getByRole("columnheader", { name: "tp", exact: true })).toHaveCount(0);

  const menu = page.getByTestId("run-columns");
  await menu.locator("summary").click();
  // Each tick navigates (the choice is URL state); the box shows it once the page has the new URL.
  await menu.getByRole("checkbox", { name: "config.tp" }).click();
  await expect(page).toHaveURL(/cols=[^&]*config\.tp/);
  await expect(menu.getByRole("checkbox", { name: "config.tp" })).toBeChecked();
  await menu.getByRole("checkbox", { name: "config.serving.quant" }).click();
  await expect(page).toHaveURL(/cols=[^&]*config\.tp%2Cconfig\.serving\.quant/);
  await expect(menu.getByRole("checkbox", { name: "config.serving.quant" })).toBeChecked();
  await menu.getByRole("checkbox", { name: "Host" }).click();
  await expect(menu.getByRole("checkbox", { name: "Host" })).not.toBeChecked();
  await expect(page).not.toHaveURL(/cols=[^&]*host/);

  const check = async () => {
    await expect(table.getByRole("columnheader", { name: "tp", exact: true })).toBeVisible();
    await expect(table.getByRole("columnheader", { name: "serving.quant" })).toBeVisible();
    await expect(table.getByRole("columnheader", { name: "Host" })).toHaveCount(0);
    for (const tp of tps) {
      const row = table.getByRole("row").filter({ hasText: `Columns run tp${tp} ${tag}` });
      await expect(row.getByRole("cell", { name: String(tp), exact: true })).toBeVisible();
      await expect(row.getByRole("cell", { name: `fp${tp}`, exact: true })).toBeVisible();
      await expect(row.getByRole("cell", { name: "e2e-run-columns" })).toHaveCount(0);
    }
  };
  await check();
  const url = page.url();
  await page.reload();
  expect(page.url()).toBe(url);
  await check();
  await expect(menu.locator("summary")).toHaveText("Columns+2");
  await menu.locator("summary").click();
  await expect(menu.getByRole("checkbox", { name: "config.tp" })).toBeChecked();
  await expect(menu.getByRole("checkbox", { name: "Host" })).not.toBeChecked();

  // A phone has cards, not columns: the chosen config keys show under each run's facts.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const card = page
    .getByRole("list", { name: "Runs" })
    .getByRole("listitem")
    .filter({ hasText: `Columns run tp8 ${tag}` });
  await expect(card.getByTestId("run-card-config")).toContainText("tp8");
  await expect(card.getByTestId("run-card-config")).toContainText("serving.quantfp8");
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  expect(overflow, "the page fits 390 px").toBeLessThanOrEqual(0);
});

test("group by model folds runs of one config.model under a row with their count", async ({
  page,
  baseURL,
}) => {
  const tag = `grp-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken("e2e-run-group-model"));
  const models = [`org/alpha-${tag}`, `org/alpha-${tag}`, `org/beta-${tag}`];
  for (const [i, model] of models.entries()) {
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run: `${tag}-${i}`,
      name: `Grouped run ${i} ${tag}`,
      kind: "benchmark",
      tags: [tag],
      config: { model },
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?tag=${tag}`);
  const table = page.getByRole("region", { name: "Runs" });
  await expect(table.locator("tr[data-group]")).toHaveCount(0);
  await page.getByLabel("Group", { exact: true }).selectOption("model");
  await expect(page).toHaveURL(/group=model/);
  const group = table.locator(`tr[data-group="model:org/alpha-${tag}"]`);
  await expect(group).toContainText(`org/alpha-${tag}`);
  await expect(group).toContainText("2 runs");
  // The single run of the other model stays a plain row.
  await expect(table.locator("tr[data-group]")).toHaveCount(1);
  await expect(table.getByRole("link", { name: `Grouped run 2 ${tag}` })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Group", { exact: true })).toHaveValue("model");
  await expect(group).toContainText("2 runs");
});

test("a metric column shows each run's latest value, sorts by it, and runs group by any config key", async ({
  page,
  baseURL,
}) => {
  const tag = `mcol-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken("e2e-run-metric-cols"));
  // Latest finite train/loss: run 0 → 0.75, run 1 → 2.125 (its step-3 NaN is skipped), run 2 → none.
  const runs = [
    { draft: "eagle", loss: [1.5, 0.75] },
    { draft: "eagle", loss: [2.125, Number.NaN] },
    { draft: "medusa", loss: [] },
  ];
  for (const [i, r] of runs.entries()) {
    const run = `${tag}-${i}`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run,
      name: `Metric run ${i} ${tag}`,
      kind: "training",
      tags: [tag],
      config: { spec: { draft: r.draft } },
    });
    if (r.loss.length > 0)
      await worker.send({
        v: 1,
        id: randomUUID(),
        type: "run.metrics",
        run,
        points: r.loss.map((value, s) => ({
          key: "train/loss",
          step: s + 2,
          value: Number.isNaN(value) ? "NaN" : value,
        })),
      });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?tag=${tag}`);
  const table = page.getByRole("region", { name: "Runs" });
  const menu = page.getByTestId("run-columns");
  await menu.locator("summary").click();
  await menu.getByRole("checkbox", { name: "train/loss" }).click();
  await expect(page).toHaveURL(/cols=[^&]*metric\.train%2Floss/);
  await expect(table.getByRole("columnheader", { name: "train/loss" })).toBeVisible();
  const row = (i: number) => table.getByRole("row").filter({ hasText: `Metric run ${i} ${tag}` });
  // One precision for the column: 0.75 beside 2.13 (the exact value on hover).
  await expect(row(0).getByRole("cell", { name: "0.75", exact: true })).toBeVisible();
  await expect(row(1).getByRole("cell", { name: "2.13", exact: true })).toBeVisible();
  await expect(row(2).getByRole("cell", { name: "—", exact: true }).last()).toBeVisible();

  // The header sorts by the latest value: highest first, runs without one last; then lowest first.
  const order = () =>
    table
      .getByRole("link", { name: new RegExp(`Metric run \\d ${tag}`) })
      .allTextContents()
      .then((t) => t.map((s) => s.slice("Metric run ".length, "Metric run ".length + 1)));
  await table.getByRole("button", { name: "train/loss" }).click();
  await expect(page).toHaveURL(/sort=metric\.train%2Floss/);
  await expect.poll(order).toEqual(["1", "0", "2"]);
  await table.getByRole("button", { name: "train/loss" }).click();
  await expect(page).toHaveURL(/dir=asc/);
  await expect.poll(order).toEqual(["0", "1", "2"]);

  // Group by a nested config key: the two eagle runs fold under one row.
  await page.getByLabel("Group", { exact: true }).selectOption("config.spec.draft");
  await expect(page).toHaveURL(/group=config\.spec\.draft/);
  const group = table.locator(`tr[data-group="config:spec.draft=eagle"]`);
  await expect(group).toContainText("spec.draft = eagle");
  await expect(group).toContainText("2 runs");
  await page.reload();
  await expect(page.getByLabel("Group", { exact: true })).toHaveValue("config.spec.draft");
  await expect(group).toContainText("2 runs");
});

test("a text config column gives a model id room; a column of numbers is right-aligned, dashes too", async ({
  page,
  baseURL,
}) => {
  const tag = `wid-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken("e2e-run-col-width"));
  const configs = [{ model: "Qwen/Qwen3.6-27B", tp: 2 }, { model: "Qwen/Qwen3.6-27B" }];
  for (const [i, config] of configs.entries()) {
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run: `${tag}-${i}`,
      name: `Width run ${i} ${tag}`,
      kind: "benchmark",
      tags: [tag],
      config,
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?tag=${tag}&cols=host,duration,config.model,config.tp`);
  const table = page.getByRole("region", { name: "Runs" });
  const model = table.getByRole("cell", { name: "Qwen/Qwen3.6-27B" }).first();
  await expect(model).toBeVisible();
  // Not cut: the whole id fits its cell.
  expect(await model.evaluate((td) => td.scrollWidth <= td.clientWidth)).toBe(true);
  const row = (i: number) => table.getByRole("row").filter({ hasText: `Width run ${i} ${tag}` });
  const tpCell = (i: number) => row(i).getByRole("cell").last();
  await expect(tpCell(0)).toHaveText("2");
  await expect(tpCell(0)).toHaveCSS("text-align", "right");
  await expect(tpCell(1)).toHaveCSS("text-align", "right");
  await expect(table.getByRole("columnheader", { name: "tp", exact: true })).toHaveCSS(
    "text-align",
    "right",
  );
});
