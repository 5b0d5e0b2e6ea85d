import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The metric-chart view lives in the URL (issue 25): log y per chart (`logy=loss,lr`), the
// drag-to-zoom step range (`fromStep=&toStep=`) on a run page and the smoothing on both pages
// (`smooth=0.9`), so a reload or a shared link shows the same; other parameters stay, no history
// entry per click, and a bad value is ignored (the page still renders).

test.describe.configure({ mode: "serial" });

const suffix = randomUUID().slice(0, 8);
const ids: Record<"a" | "b", number> = { a: 0, b: 0 };

test.beforeAll(async ({ baseURL, request }) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-chart-view-url"));
  for (const k of ["a", "b"] as const) {
    const run = `e2e-view-url-${k}-${suffix}`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run,
      name: `View ${k} ${suffix}`,
      kind: "training",
    });
    const points = Array.from({ length: 2000 }, (_, step) => [
      { key: "loss", step, value: (step % 2 === 0 ? 1 : 3) / (1 + step / 500) },
      { key: "lr", step, value: 1e-3 * 10 ** ((-2 * step) / 1999) },
      { key: "grad_norm", step, value: 1 + step / 1000 },
    ]).flat();
    await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });
  }
  worker.close();
  const res = await request.get(`/api/runs?q=${suffix}&limit=50`);
  const { runs } = (await res.json()) as { runs: Array<{ id: number; name: string }> };
  ids.a = runs.find((r) => r.name === `View a ${suffix}`)!.id;
  ids.b = runs.find((r) => r.name === `View b ${suffix}`)!.id;
});

const chartOf = (page: Page, key: string) =>
  page.locator(`[data-testid="metric-chart"][data-key="${key}"]`);
const toggleOf = (page: Page, key: string) =>
  chartOf(page, key)
    .locator("xpath=ancestor::div[contains(@class,'rounded-lg')][1]")
    .getByTestId("metric-log-y");

test("a run page keeps log y and the step zoom in the URL: a reload shows the same charts", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${ids.a}?range=6h`);
  const loss = chartOf(page, "loss");
  await expect(loss.locator(".recharts-line-curve").first()).toBeVisible();
  const historyBefore = await page.evaluate(() => history.length);

  // Two charts on log y, one click right after the other.
  await toggleOf(page, "lr").click();
  await toggleOf(page, "loss").click();
  await expect(page).toHaveURL(/[?&]logy=loss,lr(&|$)/);

  // Drag across the loss chart: every chart zooms, and the range goes into the URL.
  const plot = (await loss.locator(".recharts-cartesian-grid").boundingBox())!;
  const y = plot.y + plot.height / 2;
  await page.mouse.move(plot.x + plot.width * 0.3, y);
  await page.mouse.down();
  for (let f = 0.32; f <= 0.5; f += 0.02) await page.mouse.move(plot.x + plot.width * f, y);
  await page.mouse.up();
  const banner = page.getByRole("status").filter({ hasText: "Zoomed to steps" });
  await expect(banner).toBeVisible();
  await expect(page).toHaveURL(/fromStep=\d+&toStep=\d+/);
  const url = new URL(page.url());
  const fromStep = Number(url.searchParams.get("fromStep"));
  const toStep = Number(url.searchParams.get("toStep"));
  expect(toStep - fromStep).toBeGreaterThan(100);
  expect(url.searchParams.get("range")).toBe("6h"); // the other parameter stays
  const bannerText = `Zoomed to steps ${fromStep.toLocaleString("en-US")}–${toStep.toLocaleString("en-US")}`;
  await expect(banner).toContainText(bannerText);
  await expect(loss).toHaveAttribute("data-points", String(toStep - fromStep + 1));
  // replaceState: no history entry per click or drag.
  expect(await page.evaluate(() => history.length)).toBe(historyBefore);

  await page.reload();
  await expect(page.getByRole("status").filter({ hasText: "Zoomed to steps" })).toContainText(
    bannerText,
  );
  await expect(chartOf(page, "loss")).toHaveAttribute("data-points", String(toStep - fromStep + 1));
  await expect(toggleOf(page, "loss")).toHaveAttribute("aria-pressed", "true");
  await expect(toggleOf(page, "lr")).toHaveAttribute("aria-pressed", "true");
  await expect(toggleOf(page, "grad_norm")).toHaveAttribute("aria-pressed", "false");
  await expect(chartOf(page, "lr").locator(".recharts-yAxis-tick-labels")).toContainText("1e-");

  // Reset zoom and a log-y click take their parameters out again; the rest stays.
  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(page).not.toHaveURL(/fromStep=/);
  await toggleOf(page, "loss").click();
  await expect(page).toHaveURL(/[?&]logy=lr(&|$)/);
  expect(new URL(page.url()).searchParams.get("range")).toBe("6h");
  await expect(toggleOf(page, "loss")).toHaveAttribute("aria-pressed", "false");
});

test("a run page ignores bad view parameters and still renders every chart", async ({ page }) => {
  await page.goto(`/runs/${ids.a}?fromStep=900&toStep=100&logy=${"x".repeat(300)}&smooth=abc`);
  await expect(chartOf(page, "loss").locator(".recharts-line-curve").first()).toBeVisible();
  await expect(page.getByText("Drag across a chart to zoom every chart")).toBeVisible();
  await expect(page.getByTestId("metric-log-y")).toHaveCount(3);
  for (const key of ["loss", "lr", "grad_norm"])
    await expect(toggleOf(page, key)).toHaveAttribute("aria-pressed", "false");
  // Half a zoom (one end only) is no zoom either.
  await page.goto(`/runs/${ids.a}?fromStep=100&logy=grad_norm`);
  await expect(page.getByText("Drag across a chart to zoom every chart")).toBeVisible();
  await expect(toggleOf(page, "grad_norm")).toHaveAttribute("aria-pressed", "true");
});

test("a run page's smoothing (off by default) goes into the URL: the smoothed line over a faint raw one after a reload", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${ids.a}`);
  const loss = chartOf(page, "loss");
  await expect(loss.locator(".recharts-line-curve").first()).toBeVisible();
  await expect(page.getByTestId("smoothing-value")).toHaveText("off");
  await expect(loss.locator(".metric-raw path.recharts-line-curve")).toHaveCount(0);
  await page.getByTestId("smoothing-slider").fill("0.9");
  await expect(page).toHaveURL(/[?&]smooth=0\.9(&|$)/);
  await expect(loss.locator(".metric-smoothed path.recharts-line-curve")).toHaveCount(1);
  await expect(loss.locator(".metric-raw path.recharts-line-curve")).toHaveCount(1);

  await page.reload();
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.90");
  await expect(loss.locator(".metric-raw path.recharts-line-curve")).toHaveCount(1);
  // The zig-zag loss smoothed at 0.9 spans far less height than its raw line.
  // Measured again until both lines are drawn (a chart may re-render between finding and measuring a path).
  const height = async (cls: string) =>
    (await loss.locator(`.${cls} path.recharts-line-curve`).boundingBox())?.height ?? null;
  await expect
    .poll(async () => {
      const [smoothed, raw] = [await height("metric-smoothed"), await height("metric-raw")];
      return smoothed !== null && raw !== null && raw > 0 ? smoothed / raw : null;
    })
    .toBeLessThan(0.7);

  // Off again: the parameter leaves the URL and the single raw line is back.
  await page.getByTestId("smoothing-slider").fill("0");
  await expect(page).not.toHaveURL(/smooth=/);
  await expect(loss.locator(".metric-raw path.recharts-line-curve")).toHaveCount(0);
});

test("/compare keeps smoothing and log y in the URL: a reload shows the same", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/compare?ids=${ids.a},${ids.b}`);
  await expect(page.getByTestId("overlay-card")).toHaveCount(3);
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.60");
  await page.getByTestId("smoothing-slider").fill("0.9");
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.90");
  await expect(page).toHaveURL(/[?&]smooth=0\.9(&|$)/);
  const lr = page.locator('[data-testid="overlay-card"][data-key="lr"]');
  await lr.getByTestId("overlay-log-y").click();
  await expect(page).toHaveURL(/[?&]logy=lr(&|$)/);
  expect(new URL(page.url()).searchParams.get("ids")).toBe(`${ids.a},${ids.b}`);

  await page.reload();
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.90");
  await expect(page.getByTestId("smoothing-slider")).toHaveValue("0.9");
  await expect(lr.getByTestId("overlay-log-y")).toHaveAttribute("aria-pressed", "true");
  await expect(
    page.locator('[data-testid="overlay-card"][data-key="loss"]').getByTestId("overlay-log-y"),
  ).toHaveAttribute("aria-pressed", "false");
  await expect(lr.locator(".recharts-yAxis-tick-labels")).toContainText("1e-5");

  // Back to the default: the parameter leaves the URL. A bad value falls back to 0.60.
  await page.getByTestId("smoothing-slider").fill("0.6");
  await expect(page).not.toHaveURL(/smooth=/);
  await page.goto(`/compare?ids=${ids.a},${ids.b}&smooth=5`);
  await expect(page.getByTestId("overlay-card")).toHaveCount(3);
  await expect(page.getByTestId("smoothing-value")).toHaveText("0.60");
});

test("a benchmark run's latency log y goes into the URL and survives a reload", async ({
  page,
  baseURL,
  request,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-chart-view-url"));
  const run = `e2e-view-url-bench-${suffix}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `View bench ${suffix}`,
    kind: "benchmark",
  });
  const points = [1, 8, 64].map((c) => ({
    key: `c${c}`,
    concurrency: c,
    completed: 10 * c,
    outputTokPerS: 100 * c,
    ttftMsMedian: 90 * c,
    tpotMsMedian: 20 + c,
  }));
  await worker.send({ v: 1, id: randomUUID(), type: "run.benchmark", run, points });
  worker.close();
  const res = await request.get(`/api/runs?q=${run}&limit=5`);
  const { runs } = (await res.json()) as { runs: Array<{ id: number }> };

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${runs[0]!.id}`);
  const toggle = page.getByTestId("latency-log-y");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.click();
  await expect(page).toHaveURL(/[?&]logy=(%40|@)latency(&|$)/);
  await page.reload();
  await expect(page.getByTestId("latency-log-y")).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("latency-log-y").click();
  await expect(page).not.toHaveURL(/logy=/);
});
