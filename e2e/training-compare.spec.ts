import { randomUUID } from "node:crypto";
import { expect, test, type Locator } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// Training runs overlaid on /compare, seeded the way a training worker pushes them (/ws/ingest):
// picked on the runs page, one chart per metric key with a line per run, the smoothing slider
// (EMA solid, raw faint behind), and a "Log y" toggle on every metric chart (compare and run page).

test.describe.configure({ mode: "serial" });

const suffix = randomUUID().slice(0, 8);
const names = { a: `Drafter A ${suffix}`, b: `Drafter B ${suffix}` };
const ids: Record<"a" | "b", number> = { a: 0, b: 0 };

/** A loss that zig-zags between 1 and 3 (so smoothing visibly narrows it) and an lr falling from 1e-3 to 1e-5 (two decades). */
const points = (offset: number, extraKey: boolean) =>
  Array.from({ length: 100 }, (_, i) => i * 10).flatMap((step, i) => [
    { key: "loss", step, value: (i % 2 === 0 ? 1 : 3) + offset },
    { key: "lr", step, value: 1e-3 * 10 ** ((-2 * i) / 99) },
    ...(extraKey ? [{ key: "grad_norm", step, value: 1 + i / 100 }] : []),
  ]);

test.beforeAll(async ({ baseURL, request }) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-train-compare"));
  for (const [k, name] of Object.entries(names)) {
    const run = `e2e-train-compare-${k}-${suffix}`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run,
      name,
      kind: "training",
      config: { model: "dflash-b16", lr: 1e-3 },
    });
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.metrics",
      run,
      points: points(k === "a" ? 0 : 0.2, k === "a"),
    });
    await worker.send({ v: 1, id: randomUUID(), type: "run.end", run, status: "succeeded" });
  }
  worker.close();
  const res = await request.get(`/api/runs?q=${suffix}&limit=50`);
  const { runs } = (await res.json()) as { runs: Array<{ id: number; name: string }> };
  ids.a = runs.find((r) => r.name === names.a)!.id;
  ids.b = runs.find((r) => r.name === names.b)!.id;
});

/** Height in px of the drawn path of the first line matching `selector` in the chart. */
async function pathHeight(chart: Locator, selector: string): Promise<number> {
  // Visible first: the charts redraw once the slider's value reaches the URL (250 ms after it rests).
  const path = chart.locator(`${selector} path.recharts-line-curve`).first();
  await expect(path).toBeVisible();
  // Measured again until the path has a box: a chart may re-render between finding and measuring
  // it (a null box under load, two workers, 2026-12-06; as in chart-view-url.spec.ts).
  let height: number | null = null;
  await expect
    .poll(async () => (height = (await path.boundingBox())?.height ?? null))
    .not.toBeNull();
  return height!;
}

test("two training runs ticked on the runs page overlay their metrics by step on /compare, with smoothing and log y", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?q=${suffix}`);
  await page.getByRole("checkbox", { name: `Select ${names.a} for comparison` }).check();
  await page.getByRole("checkbox", { name: `Select ${names.b} for comparison` }).check();
  await page.getByRole("link", { name: /Compare 2 runs/ }).click();
  await expect(page).toHaveURL(/\/compare\?ids=/);
  await expect(page.getByRole("heading", { name: "Compare 2 runs" })).toBeVisible();

  // One card per key, losses first; grad_norm only from the run that has it.
  const cards = page.getByTestId("overlay-card");
  await expect(cards).toHaveCount(3);
  await expect(cards.nth(0)).toHaveAttribute("data-key", "loss");
  const loss = page.locator('[data-testid="overlay-card"][data-key="loss"]');
  await expect(loss).toContainText("2 runs");
  await expect(page.locator('[data-testid="overlay-card"][data-key="grad_norm"]')).toContainText(
    "1 run",
  );
  await expect(loss.getByText(names.a)).toBeVisible();
  await expect(loss.getByText(names.b)).toBeVisible();
  // No benchmark charts or projection for training runs.
  await expect(page.getByRole("heading", { name: /Output tok\/s by/ })).toHaveCount(0);
  await expect(page.getByTestId("projection-panel")).toHaveCount(0);

  // Smoothed by default: a faint raw line behind each run's smoothed line.
  await expect(loss.locator(".overlay-main path.recharts-line-curve")).toHaveCount(2);
  await expect(loss.locator(".overlay-raw path.recharts-line-curve")).toHaveCount(2);
  const slider = page.getByTestId("smoothing-slider");
  await slider.fill("0");
  await expect(page.getByTestId("smoothing-value")).toHaveText("off");
  await expect(loss.locator(".overlay-raw path.recharts-line-curve")).toHaveCount(0);
  const rawHeight = await pathHeight(loss, ".overlay-main");
  await slider.fill("0.9");
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.90");
  await expect(loss.locator(".overlay-raw path.recharts-line-curve")).toHaveCount(2);
  // The zig-zag between 1 and 3 smoothed at 0.9 spans far less height than the raw line.
  expect(await pathHeight(loss, ".overlay-main")).toBeLessThan(rawHeight * 0.7);
  expect(await pathHeight(loss, ".overlay-raw")).toBeGreaterThan(rawHeight * 0.95);

  // Log y on the lr chart: decade ticks (1e-5 … 1e-3) instead of linear ones.
  const lr = page.locator('[data-testid="overlay-card"][data-key="lr"]');
  await expect(lr.locator(".recharts-yAxis-tick-labels")).not.toContainText("1e-5");
  await lr.getByTestId("overlay-log-y").click();
  await expect(lr.getByTestId("overlay-log-y")).toHaveAttribute("aria-pressed", "true");
  await expect(lr.locator(".recharts-yAxis-tick-labels")).toContainText("1e-5");
  await expect(lr.locator(".recharts-yAxis-tick-labels")).toContainText("1e-4");
  // Only that chart changed.
  await expect(loss.getByTestId("overlay-log-y")).toHaveAttribute("aria-pressed", "false");
});

test("a training run page has a Log y toggle on every metric chart", async ({ page }) => {
  await page.goto(`/runs/${ids.a}`);
  const lrChart = page.locator('[data-testid="metric-chart"][data-key="lr"]');
  await expect(lrChart.locator(".recharts-line-curve").first()).toBeVisible();
  await expect(page.getByTestId("metric-log-y")).toHaveCount(3);
  await expect(lrChart.locator(".recharts-yAxis-tick-labels")).not.toContainText("1e-5");
  const card = lrChart.locator("xpath=ancestor::div[contains(@class,'rounded-lg')][1]");
  await card.getByTestId("metric-log-y").click();
  await expect(lrChart.locator(".recharts-yAxis-tick-labels")).toContainText("1e-5");
  await expect(lrChart.locator(".recharts-yAxis-tick-labels")).toContainText("1e-4");
});

test("/compare at 390 px with training runs does not overflow", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/compare?ids=${ids.a},${ids.b}`);
  await expect(page.getByTestId("overlay-card")).toHaveCount(3);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});
