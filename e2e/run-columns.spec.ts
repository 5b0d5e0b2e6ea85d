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
