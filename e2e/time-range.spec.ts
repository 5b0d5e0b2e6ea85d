import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The host page's time range (issue 25, deliverable 3): chosen in a picker, kept in the URL
// (survives a reload, read by the API), and one crosshair shared by the page's charts.

test.describe.configure({ mode: "serial" });

const host = `e2e-range-${randomUUID().slice(0, 8)}`;
let token: string;

test.beforeAll(async ({ baseURL }) => {
  token = createToken(host);
  const worker = await connectWorker(baseURL!, token);
  const now = Date.now();
  // One reading 3 h ago (outside the default hour), then one every 2 min over the last 2 h.
  const readings: Array<[number, number]> = [[3 * 3_600_000, 11]];
  for (let m = 120; m >= 0; m -= 2) readings.push([m * 60_000 + 5_000, 50 + (m % 10)]);
  for (const [agoMs, util] of readings) {
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "heartbeat",
      ts: now - agoMs,
      intervalS: 10,
      facts: {
        cpuPct: 20,
        ramUsedBytes: 2e11,
        ramTotalBytes: 1e12,
        gpus: [
          {
            index: 0,
            name: "NVIDIA RTX A6000",
            utilPct: util,
            memUsedMiB: 30_000,
            memTotalMiB: 49_140,
            tempC: 60,
          },
        ],
      },
    });
  }
  worker.close();
});

test("the range is chosen in the picker, kept in the URL across a reload, and read by the API", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/hosts/${host}`);
  await expect(page.getByText("GPU utilisation, last 1 h")).toBeVisible();
  const picker = page.getByTestId("time-range-picker").getByLabel("Time range");
  await expect(picker).toHaveValue("1h");

  await picker.selectOption("6h");
  await expect(page).toHaveURL(/[?&]range=6h/);
  await expect(page.getByText("GPU utilisation, last 6 h")).toBeVisible();
  await page.reload();
  await expect(page.getByText("GPU utilisation, last 6 h")).toBeVisible();
  await expect(page.getByTestId("time-range-picker").getByLabel("Time range")).toHaveValue("6h");

  // The API behind the charts: the hour holds the last 30 readings, six hours all 62.
  type Host = { windowFromMs: number; windowToMs: number; gpuSeries: Array<{ points: unknown[] }> };
  const hour = (await (await page.request.get(`/api/hosts/${host}`)).json()) as Host;
  const six = (await (await page.request.get(`/api/hosts/${host}?range=6h`)).json()) as Host;
  expect(hour.windowToMs - hour.windowFromMs).toBe(3_600_000);
  expect(six.windowToMs - six.windowFromMs).toBe(6 * 3_600_000);
  expect(hour.gpuSeries[0]!.points).toHaveLength(30);
  expect(six.gpuSeries[0]!.points).toHaveLength(62);
  const bad = await page.request.get(`/api/hosts/${host}?range=2h`);
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_query");

  // A week: wide buckets, still joined into a line (not broken at every bucket).
  await page.getByTestId("time-range-picker").getByLabel("Time range").selectOption("7d");
  await expect(page.getByText("GPU utilisation, last 7 d")).toBeVisible();
  await expect(
    page.getByTestId("gpu-util-chart").locator("path.recharts-line-curve").first(),
  ).toHaveAttribute("d", /L/);

  // A custom window: from/to in the URL.
  await page.getByTestId("time-range-picker").getByLabel("Time range").selectOption("custom");
  await page.getByLabel("from", { exact: true }).fill("2026-01-01T00:00");
  await page.getByLabel("to", { exact: true }).fill("2026-01-02T00:00");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]from=\d+&to=\d+/);
  await expect(page.getByText("GPU utilisation, selected range")).toBeVisible();
});

test("hovering one chart shows the same time's tooltip on the other charts of the page", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/hosts/${host}?range=6h`);
  const gpu = page.getByTestId("gpu-util-chart");
  const cpu = page.getByTestId("cpu-ram-chart");
  await expect(gpu.locator(".recharts-line").first()).toBeVisible();
  await expect(cpu.locator(".recharts-tooltip-wrapper")).not.toBeVisible();
  const box = (await gpu.locator(".recharts-surface").first().boundingBox())!;
  // Three hours ago, in the middle of the six-hour window: the first reading.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(gpu.locator(".recharts-tooltip-wrapper")).toContainText("11");
  await expect(cpu.locator(".recharts-tooltip-wrapper")).toBeVisible();
  await expect(cpu.locator(".recharts-tooltip-wrapper")).toContainText("20");
});

test("a serving run's telemetry charts share one crosshair too", async ({ page, baseURL }) => {
  const name = `e2e-serving-sync-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken(`${name}-host`));
  const now = Date.now();
  const start = now - 10 * 60_000;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: name,
    name,
    kind: "serving",
    startedAt: start,
    config: { url: "http://e2e:30000/metrics", intervalS: 30 },
  });
  const points = [];
  // Alternating values: a flat line has no height and counts as hidden.
  for (let i = 0, t = start; t <= now; i++, t += 30_000) {
    const at = { step: t, ts: t };
    points.push({ key: "serving/up", value: 1, ...at });
    points.push({ key: "serving/running_requests", value: 40 + (i % 2) * 4, ...at });
    points.push({ key: "serving/queued_requests", value: 2 + (i % 2), ...at });
    points.push({ key: "serving/kv_cache_usage", value: 0.3 + (i % 2) * 0.1, ...at });
  }
  await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run: name, points });
  worker.close();
  const found = (await (
    await page.request.get(`/api/runs?q=${encodeURIComponent(name)}`)
  ).json()) as { runs: Array<{ id: number }> };

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${found.runs[0]!.id}?range=15m`);
  const requests = page.getByTestId("serving-requests-chart");
  const kv = page.getByTestId("serving-kv-chart");
  await expect(requests.locator(".recharts-line").first()).toBeVisible();
  await expect(kv.locator(".recharts-tooltip-wrapper")).not.toBeVisible();
  const box = (await requests.locator(".recharts-surface").first().boundingBox())!;
  // Five sixths across the 15-minute window: inside the last ten minutes of readings.
  await page.mouse.move(box.x + (box.width * 5) / 6, box.y + box.height / 2);
  await expect(requests.locator(".recharts-tooltip-wrapper")).toContainText(/running\s*4[04]/);
  await expect(kv.locator(".recharts-tooltip-wrapper")).toBeVisible();
  await expect(kv.locator(".recharts-tooltip-wrapper")).toContainText(/[34]0(\.0)?\s*%/);
});
