import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// Two deployments benchmarked and compared, seeded the way a benchmark worker pushes them
// (/ws/ingest): throughput sweeps plus long-context points, the projection panel reproducing
// hand-computed hours, and /compare overlaying both with their config difference.

test.describe.configure({ mode: "serial" });

interface Pushed {
  id: number;
  name: string;
}

const suffix = randomUUID().slice(0, 8);
const runs: Record<"tp8" | "ep8" | "sweepOnly", Pushed> = {
  tp8: { id: 0, name: `Kimi TP8 e2e ${suffix}` },
  ep8: { id: 0, name: `Kimi EP8 e2e ${suffix}` },
  sweepOnly: { id: 0, name: `Sweep only e2e ${suffix}` },
};

/** A throughput-sweep level: 1000 in / 1000 out at concurrency `c`, `tokPerS` aggregate output. */
const sweep = (c: number, tokPerS: number) => ({
  key: `c${c}`,
  concurrency: c,
  inputLen: 1000,
  outputLen: 1000,
  completed: 10 * c,
  outputTokPerS: tokPerS,
  ttftMsMedian: 300 + c,
  tpotMsMedian: 25 + c / 2,
});
/** A long-context level at C=1: `inputLen` tokens in, 1000 out. */
const long = (inputLen: number, ttftMs: number, tpotMs: number, tokPerS: number) => ({
  key: `lc-${inputLen}`,
  scenario: "long-context",
  concurrency: 1,
  inputLen,
  outputLen: 1000,
  completed: 8,
  outputTokPerS: tokPerS,
  ttftMsMedian: ttftMs,
  ttftMsP99: ttftMs * 1.1,
  tpotMsMedian: tpotMs,
});

test.beforeAll(async ({ baseURL, request }) => {
  const token = createToken("e2e-compare");
  const worker = await connectWorker(baseURL!, token);
  const push = async (name: string, config: Record<string, unknown>, points: unknown[]) => {
    const run = `e2e-compare-${randomUUID()}`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run,
      name,
      kind: "benchmark",
      config,
    });
    await worker.send({ v: 1, id: randomUUID(), type: "run.benchmark", run, points });
    await worker.send({ v: 1, id: randomUUID(), type: "run.end", run, status: "succeeded" });
  };
  const base = { model: "moonshotai/Kimi-K2.6", engine: "sglang", engineVersion: "0.5.11", tp: 8 };
  await push(runs.tp8.name, { ...base, ep: 1 }, [
    sweep(1, 40),
    sweep(8, 200),
    sweep(32, 250),
    long(30_000, 2900, 27.5, 30.1),
    long(60_000, 6400, 30.5, 26.9),
    long(100_000, 12_800, 35.8, 20.7),
  ]);
  await push(runs.ep8.name, { ...base, ep: 8 }, [
    sweep(1, 35),
    sweep(8, 190),
    sweep(32, 300),
    long(30_000, 3300, 32.2, 26.1),
    long(60_000, 7300, 36.2, 22.8),
    long(100_000, 14_600, 42.7, 17.5),
  ]);
  await push(runs.sweepOnly.name, { ...base, ep: 8, pp: 2 }, [sweep(1, 20), sweep(32, 150)]);
  worker.close();

  // Run ids, read the way the browser reads them (the approver's session).
  const res = await request.get("/api/runs?kind=benchmark&limit=200");
  expect(res.ok()).toBe(true);
  const { runs: listed } = (await res.json()) as { runs: Array<{ id: number; name: string }> };
  for (const r of Object.values(runs)) r.id = listed.find((l) => l.name === r.name)!.id;
});

test("a run page charts long-context points by context length, apart from the sweep, and projects hand-computed hours", async ({
  page,
}) => {
  await page.goto(`/runs/${runs.tp8.id}`);
  // The three sweep levels on the concurrency chart; the three long-context points only on their own charts.
  await expect(page.getByTestId("throughput-chart").locator(".dot-output-tok-s")).toHaveCount(3);
  await expect(page.getByRole("heading", { name: "TTFT by context length" })).toBeVisible();
  await expect(page.getByTestId("context-ttft-chart").locator(".dot-context-ttft")).toHaveCount(3);
  await expect(page.getByTestId("context-decode-chart").locator(".dot-context-decode")).toHaveCount(
    3,
  );
  await expect(page.getByTestId("context-ttft-chart")).toContainText(
    "Context length (input tokens)",
  );
  await expect(page.getByTestId("context-ttft-chart")).toContainText("100K");

  const panel = page.getByTestId("projection-panel");
  // Defaults: 100,000 samples × 1,000 tok (the points' output length) at C=32, the highest output
  // tok/s (250): 100,000,000 tok ÷ 250 tok/s = 400,000 s = 111.11 h = 4.63 days.
  await expect(panel.getByTestId("projection-output-tokens")).toHaveValue("1,000");
  await expect(panel.getByTestId("projection-level")).toHaveValue("c32");
  await expect(panel.getByTestId("projection-hours")).toHaveText("111.1 h");

  // 20,000 samples × 1,500 tok = 30,000,000 tok; at C=8 (200 tok/s): 30,000,000 ÷ 200 = 150,000 s;
  // 150,000 ÷ 3,600 = 41.667 h; 150,000 ÷ 86,400 = 1.736 days.
  await panel.getByTestId("projection-samples").fill("20000");
  await panel.getByTestId("projection-output-tokens").fill("1500");
  await panel.getByTestId("projection-level").selectOption("c8");
  await expect(panel.getByTestId("projection-hours")).toHaveText("41.7 h");
  await expect(panel.getByTestId("projection-result")).toContainText("1.74 days");
  await expect(panel.getByTestId("projection-arithmetic")).toHaveText(
    "20,000 × 1,500 tok = 30,000,000 tok ÷ 200 tok/s = 150,000 s = 41.7 h = 1.74 days",
  );
});

test("/compare overlays both runs' long-context curves, projects each, and shows the differing config key", async ({
  page,
}) => {
  await page.goto(`/compare?ids=${runs.tp8.id},${runs.ep8.id},${runs.sweepOnly.id}`);
  await expect(page.getByRole("heading", { name: "Compare 3 runs" })).toBeVisible();

  // Long-context charts: one line per run that has long-context points; the sweep-only run is not there.
  for (const id of ["context-ttft-chart", "context-decode-chart"]) {
    const chart = page.getByTestId(id);
    await expect(chart).toContainText(runs.tp8.name);
    await expect(chart).toContainText(runs.ep8.name);
    await expect(chart).not.toContainText(runs.sweepOnly.name);
    await expect(
      chart.locator(`.dot-context-${id === "context-ttft-chart" ? "ttft" : "decode"}`),
    ).toHaveCount(6);
  }
  // The sweep chart has all three runs' levels (3 + 3 + 2), and none of the long-context points.
  await expect(page.getByTestId("throughput-chart").locator(".dot-output-tok-s")).toHaveCount(8);

  // One projection row per run, same workload: 100,000 × 1,000 tok = 100,000,000 tok at each run's best level.
  const rows = page.getByTestId("projection-row");
  await expect(rows).toHaveCount(3);
  // TP8 at C=32, 250 tok/s: 400,000 s = 111.1 h.
  await expect(rows.filter({ hasText: runs.tp8.name }).getByTestId("projection-hours")).toHaveText(
    "111.1 h",
  );
  // EP8 at C=32, 300 tok/s: 333,333 s = 92.59 h = 3.86 days; the fastest.
  const ep8 = rows.filter({ hasText: runs.ep8.name });
  await expect(ep8.getByTestId("projection-hours")).toHaveText("92.6 h");
  await expect(ep8).toContainText("fastest");
  await expect(ep8.getByTestId("projection-arithmetic")).toHaveText(
    "100,000 × 1,000 tok = 100,000,000 tok ÷ 300 tok/s = 333,333 s = 92.6 h = 3.86 days",
  );
  // Sweep only at C=32, 150 tok/s: 666,667 s = 185.2 h.
  await expect(
    rows.filter({ hasText: runs.sweepOnly.name }).getByTestId("projection-hours"),
  ).toHaveText("185.2 h");

  // Config differences: EP (1 vs 8 vs 8) and PP (only the third run) differ; model, engine, TP are identical and collapsed.
  const diff = page
    .getByRole("heading", { name: "Configuration differences" })
    .locator("xpath=ancestor::div[contains(@class,'rounded-lg')][1]");
  const epRow = diff.getByRole("row", { name: /^EP\b/ }).first();
  await expect(epRow).toBeVisible();
  await expect(epRow.getByRole("cell")).toHaveText(["EP", "1", "8", "8"]);
  await expect(diff.getByRole("row", { name: /^PP\b/ }).first()).toBeVisible();
  await expect(diff.getByText("Show 4 identical keys")).toBeVisible();
  await expect(diff.getByRole("row", { name: /^TP\b/ })).toBeHidden();
});
