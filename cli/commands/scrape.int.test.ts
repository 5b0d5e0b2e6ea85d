import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { getHostServing, getRunServing } from "@/lib/server/repositories/serving";
import { createToken } from "@/lib/server/repositories/tokens";
import { SGLANG_TTFT_BOUNDS_S } from "@/lib/serving/testing";
import {
  EXPECTED_TTFT_P50_MS,
  EXPECTED_TTFT_P99_MS,
  startExpositionServer,
  type ExpositionServer,
} from "@/test/support/exposition-server";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// `pitwall run --scrape` and `pitwall scrape` as a user runs them, against the real server and
// database and a fake SGLang /metrics endpoint on 127.0.0.1 that changes on every scrape.

const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;
let engine: ExpositionServer;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "cli-scrape")).token;
  engine = await startExpositionServer();
});

afterAll(async () => {
  await engine?.close();
  await prisma?.$disconnect();
});

function startPitwall(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: projectDir,
    env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, out, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bucket (lower, upper] in ms that holds `ms` among SGLang's TTFT bounds. */
function bucketOf(ms: number): [number, number] {
  const bounds = [0, ...SGLANG_TTFT_BOUNDS_S.map((b) => b * 1000)];
  const i = bounds.findIndex((b) => b >= ms);
  return [bounds[i - 1]!, bounds[i]!];
}

describe("pitwall run --scrape", () => {
  test("scrapes while the command runs, stores a serving run linked to the benchmark, survives the engine going down", async () => {
    const key = `bench-scrape-${Date.now()}`;
    // The command runs until the test has seen the outage and the recovery (no fixed sleeps: the
    // CLI's start-up time varies a lot on a loaded machine).
    const doneFile = path.join(os.tmpdir(), `pitwall-scrape-done-${process.pid}-${Date.now()}`);
    const waitForDone = `const fs = require("fs"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(doneFile)})) clearInterval(t); }, 50);`;
    const p = startPitwall([
      "run",
      "--kind",
      "benchmark",
      "--name",
      "sweep with telemetry",
      "--key",
      key,
      "--heartbeat-interval",
      "0",
      "--scrape",
      engine.url,
      "--scrape-interval",
      "0.3",
      "--",
      process.execPath,
      "-e",
      waitForDone,
    ]);
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 30_000;
      while (!ok()) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; stderr: ${p.out.stderr}`);
        await sleep(50);
      }
    };
    const before = engine.scrapes();
    await until("three good scrapes", () => engine.scrapes() >= before + 3);
    engine.setDown(true);
    await until("the outage to be noticed", () => p.out.stderr.includes("not reachable"));
    await sleep(700);
    engine.setDown(false);
    await until("the recovery to be noticed", () => /answers again after \d+ s/.test(p.out.stderr));
    const afterRecovery = engine.scrapes();
    await until("a good scrape after the recovery", () => engine.scrapes() >= afterRecovery + 2);
    fs.writeFileSync(doneFile, "");
    expect(await p.exited).toBe(0);
    fs.rmSync(doneFile, { force: true });
    expect(p.out.stderr).toContain("not reachable (HTTP 503 Service Unavailable)");
    expect(p.out.stderr).toMatch(/answers again after \d+ s/);

    const bench = await prisma.run.findUniqueOrThrow({
      where: { key },
      select: { id: true, config: true },
    });
    const servingKey = `serving:${os.hostname().replace(/[^A-Za-z0-9._-]/g, "-")}:${new URL(engine.url).port}/metrics`;
    expect((bench.config as { servingRuns?: string[] }).servingRuns).toEqual([servingKey]);
    const serving = await prisma.run.findUniqueOrThrow({
      where: { key: servingKey },
      select: {
        kind: true,
        status: true,
        name: true,
        host: { select: { name: true } },
        events: { select: { level: true, message: true }, orderBy: { id: "asc" } },
      },
    });
    expect(serving).toMatchObject({
      kind: "serving",
      status: "ended",
      name: `SGLang meta-llama/Llama-3.1-8B-Instruct @ ${servingKey.split(":")[1]}:${new URL(engine.url).port}`,
      host: { name: "cli-scrape" },
    });
    expect(serving.events.map((e) => e.level)).toEqual(["warn", "info"]);

    const view = await getRunServing(prisma, bench.id);
    expect(view.runs).toHaveLength(1);
    const run = view.runs[0]!;
    expect(run.up).toBe(true);
    expect(run.engine).toBe("sglang");
    // Every window holds the same 20 requests: p99 by hand is 2.35 s, p50 0.25 s.
    const p99 = run.latest["serving/ttft_ms_p99"]!;
    expect(bucketOf(p99)).toEqual(bucketOf(EXPECTED_TTFT_P99_MS));
    expect(p99).toBeCloseTo(EXPECTED_TTFT_P99_MS, 6);
    expect(run.latest["serving/ttft_ms_p50"]).toBeCloseTo(EXPECTED_TTFT_P50_MS, 6);
    expect(run.latest["serving/running_requests"]).toBeGreaterThanOrEqual(4);
    expect(run.latest["serving/accept_length"]).toBeCloseTo(3.1, 9);
    expect(run.latest["serving/prompt_tok_per_s"]).toBeGreaterThan(0);
    // The outage is in the series as up = 0, with no other sample in it.
    const up = run.series.find((s) => s.key === "serving/up")!.points;
    const downAt = up.filter((pt) => pt.value === 0).map((pt) => pt.tMs);
    expect(downAt.length).toBeGreaterThan(0);
    const kv = run.series
      .find((s) => s.key === "serving/kv_cache_usage")!
      .points.map((pt) => pt.tMs);
    const [gapFrom, gapTo] = [Math.min(...downAt), Math.max(...downAt)];
    expect(kv.some((t) => t >= gapFrom && t <= gapTo)).toBe(false);
    expect(kv.some((t) => t > gapTo)).toBe(true);
  });
});

describe("pitwall scrape", () => {
  test("pushes until SIGTERM, then ends the serving run; the host's Serving panel reads it", async () => {
    const before = engine.scrapes();
    const p = startPitwall(["scrape", engine.url, "--interval", "0.3", "--host", "gpu-box-7"]);
    const deadline = Date.now() + 20_000;
    while (engine.scrapes() < before + 4 && Date.now() < deadline) await sleep(100);
    await sleep(500);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    const run = await prisma.run.findUniqueOrThrow({
      where: { key: `serving:gpu-box-7:${new URL(engine.url).port}/metrics` },
      select: { status: true, host: { select: { name: true } } },
    });
    expect(run).toEqual({ status: "ended", host: { name: "gpu-box-7" } });
    const panel = await getHostServing(prisma, "gpu-box-7");
    expect(panel.runs).toHaveLength(1);
    expect(panel.runs[0]!.latest["serving/kv_cache_usage"]).toBeGreaterThan(0);
  });

  test("refuses a URL that is not http(s) with exit code 2", async () => {
    const p = startPitwall(["scrape", "localhost:30000"]);
    expect(await p.exited).toBe(2);
    expect(p.out.stderr).toContain("only http(s) endpoints can be scraped");
  });
});
