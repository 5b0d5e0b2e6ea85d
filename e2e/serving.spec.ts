import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";

import { startExpositionServer, type ExpositionServer } from "../test/support/exposition-server";
import { connectWorker, createToken } from "./support";

// `pitwall run --scrape` against a fake SGLang /metrics on 127.0.0.1 that changes on every scrape:
// the benchmark run page fills its server telemetry live, and the host page shows the engine.

const projectDir = path.resolve(import.meta.dirname, "..");
const HOST = "e2e-serving";

let token: string;
let engine: ExpositionServer;

test.beforeAll(async () => {
  token = createToken(HOST);
  engine = await startExpositionServer();
});

test.afterAll(async () => {
  await engine?.close();
});

test("a benchmark run with --scrape shows the engine's telemetry filling live, and the host page its Serving panel", async ({
  page,
  baseURL,
}) => {
  // Several page loads and a scraper outage; the shared 2-core machine can be slow.
  test.setTimeout(150_000);
  const key = `e2e-scrape-${randomUUID()}`;
  const name = `Sweep with server telemetry ${key.slice(-6)}`;
  const child = spawn(
    process.execPath,
    [
      path.join(projectDir, "bin", "pitwall.mjs"),
      "run",
      "--kind",
      "benchmark",
      "--name",
      name,
      "--key",
      key,
      "--heartbeat-interval",
      "0",
      "--scrape",
      engine.url,
      "--scrape-interval",
      "0.5",
      "--",
      process.execPath,
      "-e",
      "setTimeout(() => {}, 140000)",
    ],
    {
      cwd: projectDir,
      env: { ...process.env, PITWALL_URL: baseURL!, PITWALL_TOKEN: token },
      stdio: "ignore",
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    // The client's sweep: two levels pushed as they finish, with their durations.
    const worker = await connectWorker(baseURL!, token);
    await expect.poll(() => engine.scrapes(), { timeout: 15_000 }).toBeGreaterThan(2);
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.benchmark",
      run: key,
      points: [
        {
          key: "c1",
          concurrency: 1,
          durationS: 1,
          completed: 10,
          outputTokPerS: 40,
          acceptLength: 2.8,
        },
      ],
    });

    await page.goto("/runs");
    await page.getByRole("link", { name }).click();
    await expect(page).toHaveURL(/\/runs\/\d+$/, { timeout: 30_000 });
    const card = page.getByTestId("serving-card");
    await expect(card.getByText("Server telemetry during this run")).toBeVisible({
      timeout: 20_000,
    });
    await expect(card.getByText(/^SGLang meta-llama\/Llama-3\.1-8B-Instruct @ /)).toBeVisible();
    await expect(card.getByText("Answering")).toBeVisible();
    // p99 TTFT of each window from the histogram: 2.35 s by hand (test/support/exposition-server.ts),
    // in the page's one latency unit: ms, as the benchmark's own points (lib/latency-unit.ts).
    await expect(card.getByTestId("serving-ttft")).toHaveText(/250 ms \/ 2,350 ms/);
    // Server-side accept length next to the client's τ.
    await expect(card.getByText("3.10 / 2.80")).toBeVisible();

    // Filling live, without a reload: the KV-usage line grows with every scrape.
    const kvLine = card.getByTestId("serving-kv-chart").locator("path.recharts-line-curve");
    await expect(kvLine).toHaveCount(1);
    const firstPath = await kvLine.getAttribute("d");
    await expect.poll(() => kvLine.getAttribute("d"), { timeout: 20_000 }).not.toBe(firstPath);
    await expect(card.getByTestId("serving-kv")).toHaveText(/KV cache\d+\.\d%/);
    await expect(
      card.getByTestId("serving-requests-chart").locator("path.recharts-line-curve"),
    ).toHaveCount(2);
    // The sweep level is marked on the charts.
    await expect(card.getByTestId("serving-kv-chart").getByText("c=1")).toBeVisible();

    // The engine goes down: the page says so.
    engine.setDown(true);
    await expect(card.getByText(/Engine down/)).toBeVisible({ timeout: 20_000 });
    engine.setDown(false);
    await expect(card.getByText("Answering")).toBeVisible({ timeout: 20_000 });
    worker.close();

    await page.goto(`/hosts/${HOST}`);
    const panel = page.getByTestId("serving-card");
    await expect(panel.getByRole("heading", { name: "Serving" })).toBeVisible();
    await expect(panel.getByRole("link", { name: /^SGLang meta-llama/ })).toBeVisible();
    await expect(panel.getByTestId("serving-ttft")).toHaveText(/2\.35 s/);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
});

/** Two GPUs as dcgm-exporter writes them; GPU 0 busy, GPU 1 idle. */
const DCGM_TEXT = [
  'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 96',
  'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 4',
  'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} 73728',
  'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b"} 1024',
  'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a"} 520',
  'DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b"} 90',
  'DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-a"} 67',
  'DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b"} 41',
  "",
].join("\n");

test("pitwall scrape --dcgm draws each GPU's readings on the Serving panel, and the run ends `ended` when scraping stops", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const host = "e2e-serving-gpu";
  const gpuToken = createToken(host);
  // Its own engine: a loopback endpoint's run key names this machine and the port, and the first
  // test's serving run on the shared engine belongs to another host's token.
  const gpuEngine = await startExpositionServer();
  const dcgm = http.createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(DCGM_TEXT),
  );
  await new Promise<void>((resolve) => dcgm.listen(0, "127.0.0.1", resolve));
  const dcgmUrl = `http://127.0.0.1:${(dcgm.address() as AddressInfo).port}/metrics`;
  const child = spawn(
    process.execPath,
    [
      path.join(projectDir, "bin", "pitwall.mjs"),
      "scrape",
      gpuEngine.url,
      "--interval",
      "0.5",
      "--dcgm",
      dcgmUrl,
    ],
    {
      cwd: projectDir,
      env: { ...process.env, PITWALL_URL: baseURL!, PITWALL_TOKEN: gpuToken },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let dcgmScrapes = 0;
  dcgm.on("request", () => dcgmScrapes++);
  try {
    await expect.poll(() => dcgmScrapes, { timeout: 20_000, message: stderr }).toBeGreaterThan(2);
    await page.goto(`/hosts/${host}`);
    const panel = page.getByTestId("serving-card");
    await expect(panel.getByTestId("serving-gpu-util")).toHaveText(/GPU util \(mean\)50%/, {
      timeout: 20_000,
    });
    await expect(panel.getByTestId("serving-gpu-latest")).toContainText("73.0 GiB");
    await expect(panel.getByTestId("serving-gpu-latest")).toContainText("610 W");
    await expect(panel.getByTestId("serving-gpu-latest")).toContainText("67 °C");
    // One line per GPU on each GPU chart, named by its index.
    await expect(panel.getByText("GPU utilisation by GPU")).toBeVisible();
    await expect(
      panel.getByTestId("serving-gpu-util_pct-chart").locator("path.recharts-line-curve"),
    ).toHaveCount(2, { timeout: 20_000 });
    await expect(panel.getByTestId("serving-gpu-temp_c-chart").getByText("GPU 1")).toBeVisible();
    const runLink = panel.getByRole("link", { name: /^SGLang meta-llama/ });
    const href = await runLink.getAttribute("href");

    child.kill("SIGTERM");
    await exited;
    await page.goto(href!);
    await expect(page.getByText("Ended").first()).toBeVisible({ timeout: 20_000 });
  } finally {
    child.kill("SIGTERM");
    await exited;
    await new Promise<void>((resolve) => dcgm.close(() => resolve()));
    await gpuEngine.close();
  }
});
