import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The run page laid out per kind, against the real server and a fresh embedded database, fed
// through /ws/ingest like a worker: long tables paged latest first, the side column, one latency
// unit per page, bar labels clear of the τ baselines, data tables under the charts, and zooming a
// training chart into a step range read again at full resolution.

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-runpage-host");
});

type Worker = Awaited<ReturnType<typeof connectWorker>>;

async function runIdOf(page: Page, key: string): Promise<number> {
  const listed = (await (
    await page.request.get(`/api/runs?q=${key}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { runs: Array<{ id: number }> };
  return listed.runs[0]!.id;
}

/** Eval results of one prompt per checkpoint step: τ = (accepted + verify) / verify = 1 + accepted / 100. */
async function scoreCheckpoints(
  worker: Worker,
  run: string,
  steps: number[],
  accepted: (step: number) => number,
  category = "code",
) {
  const results = steps.map((step) => ({
    key: `r${step}-${category}`,
    checkpoint: { step, uri: `s3://e2e-runpage/${run}/step-${step}` },
    promptId: `p-${category}`,
    category,
    verifySteps: 100,
    acceptedTokens: accepted(step),
  }));
  await worker.send({ v: 1, id: randomUUID(), type: "run.eval", run, results });
}

test("the τ table is paged by checkpoint, latest first, with a page-size choice; the side column sits right from 1280 px", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-paged-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Paged evals ${run.slice(-8)}`,
    kind: "eval",
    tags: ["paging"],
    notes: "eight checkpoints",
    config: { dataset: "humaneval" },
  });
  // Steps 1000…8000: τ 2.10, 2.20, … 2.80 (accepted = 100 + step / 100).
  const steps = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => k * 1000);
  await scoreCheckpoints(worker, run, steps, (s) => 100 + s / 100);
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const taus = page.getByTestId("checkpoint-tau");
  await expect(taus).toHaveText(["2.80", "2.70", "2.60", "2.50", "2.40"]);
  const pager = page.getByRole("navigation", { name: "Pages of checkpoints" });
  await expect(pager).toContainText("1–5 of 8 checkpoints");
  await expect(pager).toContainText("page 1 of 2");

  // Keyboard: focus "Older" and press Enter.
  await pager.getByRole("button", { name: "Older" }).focus();
  await page.keyboard.press("Enter");
  await expect(taus).toHaveText(["2.30", "2.20", "2.10"]);
  await expect(pager).toContainText("6–8 of 8 checkpoints");
  await expect(pager.getByRole("button", { name: "Older" })).toBeDisabled();
  await pager.getByLabel("Per page").selectOption("10");
  await expect(taus).toHaveCount(8);
  await expect(taus.first()).toHaveText("2.80");

  // The τ chart is a named figure with its data in a table (latest checkpoint first).
  const figure = page.getByRole("figure", { name: "Acceptance length τ by checkpoint" });
  await figure.getByText(/Data table \(8 rows\)/).click();
  const dataRows = figure.getByRole("table").getByRole("row");
  await expect(dataRows).toHaveCount(9);
  await expect(dataRows.nth(1)).toContainText("step 8,000");
  await expect(dataRows.nth(1)).toContainText("2.80");

  // Side column: tags, notes, configuration and lineage, right of the charts at 1440 px …
  const main = page.getByTestId("run-main-column");
  const side = page.getByRole("complementary", { name: "Run details" });
  await expect(side.getByText("eight checkpoints")).toBeVisible();
  await expect(side.getByRole("heading", { name: "Configuration" })).toBeVisible();
  await expect(side.getByTestId("run-lineage")).toContainText("Scored 8 checkpoints of other runs");
  let m = (await main.boundingBox())!;
  let s = (await side.boundingBox())!;
  expect(s.x).toBeGreaterThanOrEqual(m.x + m.width);
  expect(s.y).toBeLessThan(m.y + 50);
  // … and after them below 1280 px.
  await page.setViewportSize({ width: 1100, height: 900 });
  await expect
    .poll(async () => {
      const [mb, sb] = [(await main.boundingBox())!, (await side.boundingBox())!];
      return sb.y >= mb.y + mb.height;
    })
    .toBe(true);
  m = (await main.boundingBox())!;
  s = (await side.boundingBox())!;
  expect(Math.abs(s.x - m.x)).toBeLessThan(2);
});

test("one unit per latency metric on a page: TTFT in seconds in the charts, the point table and the data tables when its median is ≥ 1 s, TPOT of 40 ms still in ms; the points are paged", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-unit-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Slow sweep ${run.slice(-8)}`,
    kind: "benchmark",
  });
  // 30 levels: TTFT 1.5 s and up, TPOT 40 ms, E2E 20 s and up; the page's median latency is over 1 s.
  const points = Array.from({ length: 30 }, (_, i) => ({
    key: `c${i + 1}`,
    concurrency: i + 1,
    completed: 10,
    outputTokPerS: 100 + i,
    ttftMsMedian: 1500 + 100 * i,
    ttftMsP99: 3000 + 100 * i,
    tpotMsMedian: 40,
    e2eMsMedian: 20_000 + 100 * i,
  }));
  const longContext = [30_000, 60_000].map((inputLen, i) => ({
    key: `lc${inputLen}`,
    scenario: "long-context",
    concurrency: 1,
    inputLen,
    completed: 4,
    outputTokPerS: 30,
    ttftMsMedian: 9000 * (i + 1),
    tpotMsMedian: 35,
  }));
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.benchmark",
    run,
    points: [...points, ...longContext],
  });
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  await expect(
    page.getByText("median and p99 · units on each axis", { exact: true }),
  ).toBeVisible();
  const ttft = page.getByRole("figure", {
    name: /^Time to first token by concurrency, median and p99 \(s\)/,
  });
  await expect(ttft.locator(".recharts-label", { hasText: "TTFT (s)" })).toBeVisible();
  await ttft.getByText(/Data table/).click();
  await expect(ttft.getByRole("columnheader", { name: "TTFT median (s)" })).toBeVisible();
  await expect(ttft.getByRole("row").nth(1)).toContainText("1.50 s");
  // TPOT picks its own unit: 40 ms stays 40 ms, never "0.04 s" (issue 25).
  const tpot = page.getByRole("figure", {
    name: /^Time per output token by concurrency, median and p99 \(ms\)/,
  });
  await expect(tpot.locator(".recharts-label", { hasText: "TPOT (ms)" })).toBeVisible();
  // Long-context TTFT too.
  const lc = page.getByRole("figure", { name: /^TTFT by context length, median \(s\)/ });
  await lc.getByText(/Data table/).click();
  await expect(lc.getByRole("row").nth(1)).toContainText("30,000");
  await expect(lc.getByRole("row").nth(1)).toContainText("9 s");

  // The point table: seconds in its headers and cells, 25 points a page.
  const table = page.getByRole("navigation", { name: "Pages of points" }).locator("xpath=..");
  await expect(table.getByRole("columnheader", { name: "TTFT (s)" })).toBeVisible();
  await expect(table.getByRole("columnheader", { name: "TTFT (ms)" })).toHaveCount(0);
  const firstRow = table
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: "ok", exact: true }) })
    .first();
  // TTFT p50 1,500 ms as 1.5 s (one decimal: the long-context points' 18 s sets the column's precision), TPOT 40 ms as 40 under "TPOT (ms)".
  await expect(table.getByRole("columnheader", { name: "TPOT (ms)" })).toBeVisible();
  await expect(firstRow.getByRole("cell", { name: "1.5", exact: true })).toBeVisible();
  await expect(firstRow.getByRole("cell", { name: "40", exact: true })).toBeVisible();
  const pager = page.getByRole("navigation", { name: "Pages of points" });
  await expect(pager).toContainText("1–25 of 32 points");
  await expect(
    table.getByRole("row").filter({ has: page.getByRole("cell", { name: "ok", exact: true }) }),
  ).toHaveCount(25);
  await pager.getByRole("button", { name: "Next" }).click();
  await expect(pager).toContainText("26–32 of 32 points");
  await expect(
    table.getByRole("row").filter({ has: page.getByRole("cell", { name: "ok", exact: true }) }),
  ).toHaveCount(7);
});

test("a bar's τ label is moved clear of a baseline line that would cross it", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const suffix = randomUUID().slice(0, 8);
  const run = `e2e-bars-${suffix}`;
  // A baseline just above the code bar's top (τ 10.00 vs 10.25): the usual label spot is on the line.
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "baseline.upsert",
    name: `near bar ${suffix}`,
    metric: "tau",
    value: 10.25,
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Bars ${suffix}`,
    kind: "eval",
  });
  await scoreCheckpoints(worker, run, [1000], () => 900, "code");
  await scoreCheckpoints(worker, run, [1000], () => 500, "chat");
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const bars = page.getByTestId("tau-category-bars");
  const label = bars.locator("text.bar-value-label", { hasText: "10.00" });
  await expect(label).toBeVisible();
  // Every baseline line (the 10.25 one among them) passes outside the label's text box, with a pixel
  // to spare. Measured in one pass: the chart may redraw while evals refresh.
  const measure = () =>
    bars.evaluate((el) => {
      const label = [...el.querySelectorAll("text.bar-value-label")].find(
        (t) => t.textContent === "10.00",
      );
      const box = label?.getBoundingClientRect();
      const lineYs = [...el.querySelectorAll(".recharts-reference-line line")].map(
        (l) => l.getBoundingClientRect().y,
      );
      return box ? { top: box.y, bottom: box.y + box.height, lineYs } : null;
    });
  await expect.poll(async () => (await measure())?.lineYs.length ?? 0).toBeGreaterThan(0);
  const m = (await measure())!;
  // The 10.25 line runs just above the code bar's top: the label's usual spot.
  expect(m.lineYs.some((y) => y < m.top + 40 && y > m.top - 40)).toBe(true);
  for (const y of m.lineYs) expect(y < m.top - 1 || y > m.bottom + 1).toBe(true);
  // The bar chart has its data as a table as well.
  await page
    .getByRole("figure", { name: "Acceptance length τ by category" })
    .getByText(/Data table \(2 rows\)/)
    .click();
  await expect(
    page
      .getByRole("figure", { name: "Acceptance length τ by category" })
      .getByRole("row", { name: /code/ }),
  ).toContainText("10.00");
});

test("dragging across a training chart zooms every chart to those steps, read again with fromStep/toStep at full resolution", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-zoom-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Zoom ${run.slice(-8)}`,
    kind: "training",
  });
  // 4,000 steps of loss and lr: more than the 1,000-point budget, so the whole-run chart is downsampled.
  for (let from = 0; from < 4000; from += 2000) {
    const points = Array.from({ length: 2000 }, (_, i) => from + i).flatMap((step) => [
      { key: "loss", step, value: 3 / (1 + step / 500) + (step % 7) * 0.01 },
      { key: "lr", step, value: 3e-4 },
    ]);
    await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const chart = page.locator('[data-testid="metric-chart"][data-key="loss"]');
  await expect(chart.locator(".recharts-line-curve").first()).toBeVisible();
  const card = chart.locator("xpath=ancestor::div[contains(@class,'rounded-lg')][1]");
  await expect(card.getByTestId("metric-points")).toContainText("of 4,000 points");
  const before = Number(await chart.getAttribute("data-points"));
  expect(before).toBeLessThanOrEqual(1000);

  const plot = (await chart.locator(".recharts-cartesian-grid").boundingBox())!;
  const y = plot.y + plot.height / 2;
  const request = page.waitForRequest((r) =>
    /\/api\/runs\/\d+\/metrics\?fromStep=\d+&toStep=\d+/.test(r.url()),
  );
  await page.mouse.move(plot.x + plot.width * 0.3, y);
  await page.mouse.down();
  for (let f = 0.32; f <= 0.4; f += 0.02) await page.mouse.move(plot.x + plot.width * f, y);
  await page.mouse.up();
  const url = new URL((await request).url());
  const fromStep = Number(url.searchParams.get("fromStep"));
  const toStep = Number(url.searchParams.get("toStep"));
  expect(fromStep).toBeGreaterThan(800);
  expect(toStep).toBeLessThan(2000);
  expect(toStep - fromStep).toBeGreaterThan(100);

  // Every stored point of the range is drawn (one per step), in both charts.
  const inRange = toStep - fromStep + 1;
  await expect(page.getByRole("status").filter({ hasText: "Zoomed to steps" })).toBeVisible();
  await expect(chart).toHaveAttribute("data-points", String(inRange));
  await expect(page.locator('[data-testid="metric-chart"][data-key="lr"]')).toHaveAttribute(
    "data-points",
    String(inRange),
  );
  await expect(card.getByTestId("metric-points")).toHaveText(
    `${inRange.toLocaleString("en-US")} points in the range`,
  );
  // The data table lists the range's points, first step first.
  await chart.getByText(/Data table/).click();
  await expect(chart.getByRole("row").nth(1)).toContainText(fromStep.toLocaleString("en-US"));

  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(chart).toHaveAttribute("data-points", String(before));
  await expect(card.getByTestId("metric-points")).toContainText("of 4,000 points");
});

test("at 1920 px an extraction run's artifact table fits its half-width card: a long URI is cut with a tooltip, Size and Time stay in view", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-artifacts-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Artifacts ${run.slice(-8)}`,
    kind: "extraction",
    total: 100,
    unit: "samples",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.progress",
    run,
    workerId: "gpu0",
    bootId: "b",
    done: 10,
    counters: { "s3.uploaded": 3 },
  });
  for (let i = 0; i < 3; i++) {
    const uri = `s3://dflash-hidden-states/qwen3.6-27b/extract-914k-with-a-long-prefix/gpu${i}/shard-${String(i).padStart(5, "0")}.tar`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.artifact",
      run,
      kind: "upload",
      uri,
      sizeBytes: 2.7e9,
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const table = page.getByRole("region", { name: "Artifacts" });
  await expect(table.getByRole("row")).toHaveCount(4);
  await table.scrollIntoViewIfNeeded();
  // It scrolled sideways inside its card, with the Time column out of view.
  expect(await table.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  await expect(table.getByRole("columnheader", { name: "Time" })).toBeInViewport({ ratio: 1 });
  await expect(table.locator("[title^='s3://dflash-hidden-states/']").first()).toBeVisible();
  // The cut falls on the URI's start: the object's own name (what tells the rows apart) stays whole.
  const tail = table.locator("[data-uri-tail]").first();
  await expect(tail).toHaveText(/^shard-0000\d\.tar$/);
  expect(await tail.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
});

test("a running command's output appears live on its run page, and the search keeps the matching lines", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `gen-output-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `completions ${run}`,
    kind: "generation",
    config: { command: "python generate.py --shard 3" },
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.output",
    run,
    lines: ["loading model", "batch 1 ok"],
  });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const tail = page.getByLabel("Output tail");
  await expect(tail).toContainText("batch 1 ok");
  await expect(page.getByText("Last 2 lines of output · live")).toBeVisible();

  // Pushed while the page is open: drawn without a reload.
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.output",
    run,
    lines: ["batch 2 ok", "ERROR CUDA out of memory", "batch 3 ok"],
  });
  await expect(tail).toContainText("ERROR CUDA out of memory", { timeout: 15_000 });

  await expect(async () => {
    await page.getByRole("searchbox", { name: "Search the output" }).fill("cuda");
    await expect(page.getByText("1 of 5 lines match")).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(tail).toHaveText("ERROR CUDA out of memory");
  worker.close();
});

test("a metric whose key ends in a unit is titled by its label and unit, the key beside it", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-units-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: run,
    kind: "generation",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.metrics",
    run,
    points: [1, 2, 3].flatMap((step) => [
      { key: "prompts_per_s", step, value: 0.2 * step },
      { key: "loss", step, value: 1 / step },
    ]),
  });
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const title = (key: string) =>
    page.locator(`[data-metric-card="${key}"]`).locator("[title]").first();
  await expect(title("prompts_per_s")).toHaveText("prompts/s prompts_per_s by step");
  await expect(title("loss")).toHaveText("loss by step");
});
