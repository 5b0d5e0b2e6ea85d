import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { parseApiJsonText } from "@/lib/protocol/api-json";
import { freePort, readLiveConnection } from "@/lib/server/database/embedded";
import { createToken } from "@/lib/server/repositories/tokens";
import { buildIsStale } from "@/scripts/lib/build";

// `npm run demo` end to end: the real script with its own embedded PostgreSQL in a temp folder,
// the real server (production build), real worker clients (TS SDK and, when python3 exists, the
// Python client). Checked from outside through the public read API, like a newcomer's browser.

const projectDir = path.resolve(import.meta.dirname, "..");

let demo: ChildProcess | null = null;
let demoExited: Promise<number | null> | null = null;
let dataDir: string | null = null;

afterAll(async () => {
  // A failed test must not leave a demo (and its server and PostgreSQL) behind: the graceful
  // path first, a kill as the last resort.
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    demo.kill("SIGTERM");
    const timer = setTimeout(() => demo?.kill("SIGKILL"), 60_000);
    await demoExited;
    clearTimeout(timer);
  }
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
}, 90_000);

interface RunSummary {
  id: number;
  key: string;
  kind: string;
  name: string;
}

/** What the API showed at the last poll, for the failure message. */
interface Observed {
  kinds: string[];
  extractionWorkers: Array<{ workerId: string; done: number | null; restarts: number }>;
  benchmarkPoints: number;
  generationDone: number | null;
  lossNaN: boolean;
  onlineHostsWithGpus: string[];
  /** τ lines on /evals (one per training run) with their checkpoint counts. */
  evalLines: Array<{ run: string; points: number }>;
  baselineValues: number[];
}

test("npm run demo serves every simulated run within a minute and stops cleanly on SIGINT", async () => {
  if (
    !process.env.PITWALL_TEST_DEV &&
    !process.env.PITWALL_TEST_ASSUME_BUILT &&
    buildIsStale(projectDir)
  ) {
    throw new Error(
      "the production build is missing or stale: run `npm run build` (npm test does it for you)",
    );
  }
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-demo-test-"));
  const port = await freePort();
  // --duration is only a safety net: the test stops the demo itself with SIGINT.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/demo.ts",
      "--port",
      String(port),
      "--speed",
      "300",
      "--duration",
      "600",
    ],
    {
      cwd: projectDir,
      env: {
        ...process.env,
        PITWALL_DATA_DIR: dataDir,
        PITWALL_SKIP_BUILD: "1",
        DATABASE_URL: "",
        HOST: "127.0.0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  demo = child;
  demoExited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const output: string[] = [];
  readline.createInterface({ input: child.stderr! }).on("line", (l) => output.push(l));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the demo printed no URL within 180 s:\n${output.join("\n")}`)),
      180_000,
    );
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      const m = /open (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void demoExited!.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`the demo exited with ${code} before printing its URL:\n${output.join("\n")}`),
      );
    });
  });
  expect(url).toBe(`http://localhost:${port}`);

  // Reads need a viewer: a worker token of our own, created the way `pitwall token create` does
  // (the demo's database is found through connection.json in its data folder).
  const connection = await readLiveConnection(dataDir);
  expect(connection, "the demo's embedded PostgreSQL is running").not.toBeNull();
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: connection!.url, max: 1 }),
  });
  const token = await createToken(prisma, "demo-test-reader").finally(() => prisma.$disconnect());
  const base = `http://127.0.0.1:${port}`;
  const get = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${token.token}` } });
    if (!res.ok) throw new Error(`GET ${p}: HTTP ${res.status}: ${await res.text()}`);
    // Non-finite numbers come tagged ({"$num":"NaN"}); read them as the browser does.
    return parseApiJsonText<T>(await res.text());
  };

  const observe = async (): Promise<{ observed: Observed; runs: Map<string, RunSummary> }> => {
    const { runs } = await get<{ runs: RunSummary[] }>("/api/runs?limit=200");
    // The newest run of each kind (the list is newest first): the live ones, not the demo's history.
    const byKind = new Map<string, RunSummary>();
    for (const r of runs)
      if (r.key.startsWith("demo-") && !byKind.has(r.kind)) byKind.set(r.kind, r);
    const observed: Observed = {
      kinds: [...byKind.keys()].sort(),
      extractionWorkers: [],
      benchmarkPoints: 0,
      generationDone: null,
      lossNaN: false,
      onlineHostsWithGpus: [],
      evalLines: [],
      baselineValues: [],
    };
    const extraction = byKind.get("extraction");
    if (extraction) {
      const p = await get<{
        workers: Array<{ workerId: string; done: number | null; restarts: number }>;
      }>(`/api/runs/${extraction.id}/progress`);
      observed.extractionWorkers = p.workers.map((w) => ({
        workerId: w.workerId,
        done: w.done,
        restarts: w.restarts,
      }));
    }
    const benchmark = byKind.get("benchmark");
    if (benchmark)
      observed.benchmarkPoints = (
        await get<{ benchmarkPoints: unknown[] }>(`/api/runs/${benchmark.id}`)
      ).benchmarkPoints.length;
    const generation = byKind.get("generation");
    if (generation)
      observed.generationDone = (
        await get<{ progress: { done: number | null } }>(`/api/runs/${generation.id}/progress`)
      ).progress.done;
    const training = byKind.get("training");
    if (training) {
      const m = await get<{
        series: Array<{ key: string; points: Array<{ value: number | string }> }>;
      }>(`/api/runs/${training.id}/metrics?key=loss`);
      observed.lossNaN = m.series.some(
        (s) =>
          s.key === "loss" &&
          s.points.some((p) => typeof p.value === "number" && Number.isNaN(p.value)),
      );
    }
    const { hosts } = await get<{
      hosts: Array<{ name: string; state: string; facts: { gpus?: unknown[] } | null }>;
    }>("/api/hosts");
    const evals = await get<{
      lines: Array<{ run: { name: string }; points: unknown[] }>;
      baselines: Array<{ value: number }>;
    }>("/api/evals");
    observed.evalLines = evals.lines
      .map((l) => ({ run: l.run.name, points: l.points.length }))
      .sort((a, b) => a.run.localeCompare(b.run));
    observed.baselineValues = evals.baselines.map((b) => b.value);
    observed.onlineHostsWithGpus = hosts
      .filter((h) => h.state === "online" && (h.facts?.gpus?.length ?? 0) > 0)
      .map((h) => h.name)
      .sort();
    return { observed, runs: byKind };
  };
  const ready = (o: Observed) =>
    ["benchmark", "eval", "extraction", "generation", "serving", "training"].every((k) =>
      o.kinds.includes(k),
    ) &&
    o.evalLines.length === 2 &&
    o.evalLines.every((l) => l.points > 0) &&
    o.extractionWorkers.length === 4 &&
    o.extractionWorkers.every((w) => (w.done ?? 0) > 0) &&
    o.extractionWorkers.some((w) => w.restarts >= 1) &&
    o.benchmarkPoints > 0 &&
    (o.generationDone ?? 0) > 0 &&
    o.lossNaN &&
    o.onlineHostsWithGpus.length >= 4;

  // Generous: everything shows up within ~15 s at --speed 300 on an idle machine.
  let last: Observed | null = null;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    last = (await observe()).observed;
    if (ready(last)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  expect(last!.kinds).toEqual([
    "benchmark",
    "eval",
    "extraction",
    "generation",
    "serving",
    "training",
  ]);
  // Drafter evals: the 12.4 reference, run 6's ten scored checkpoints and run 7's live ones, one line per training run.
  expect(last!.baselineValues).toEqual([12.4]);
  expect(last!.evalLines.map((l) => l.run)).toEqual([
    "DFlash drafter b16 · Qwen3.6-27B · run 6",
    "DFlash drafter b16 · Qwen3.6-27B · run 7",
  ]);
  expect(last!.evalLines[0]!.points).toBe(10);
  expect(last!.evalLines[1]!.points).toBeGreaterThan(0);
  expect(last!.extractionWorkers.map((w) => w.workerId)).toEqual(["gpu0", "gpu1", "gpu2", "gpu3"]);
  expect(
    last!.extractionWorkers.every((w) => (w.done ?? 0) > 0),
    JSON.stringify(last!.extractionWorkers),
  ).toBe(true);
  // gpu2's simulated crash: a second boot of one worker.
  expect(
    last!.extractionWorkers.find((w) => w.workerId === "gpu2")?.restarts,
  ).toBeGreaterThanOrEqual(1);
  expect(last!.benchmarkPoints).toBeGreaterThan(0);
  expect(last!.generationDone).toBeGreaterThan(0);
  expect(last!.lossNaN, "the training loss has its NaN point").toBe(true);
  expect(last!.onlineHostsWithGpus).toEqual(["ct129", "kpro5", "kpro6", "ws-a6000"]);
  // Deployments to compare: three finished Kimi K2.6 runs, each with a sweep and 30K/60K/100K long-context points.
  const kimi = (await get<{ runs: RunSummary[] }>("/api/runs?limit=200")).runs.filter((r) =>
    /^demo-.*-kimi-(tp8|ep8|ep8-mtp)$/.test(r.key),
  );
  expect(kimi.map((r) => r.name).sort()).toEqual([
    "Kimi K2.6 EP8 + MTP · sweep + long context",
    "Kimi K2.6 EP8 · sweep + long context",
    "Kimi K2.6 TP8 · sweep + long context",
  ]);
  const tp8 = await get<{ benchmarkPoints: Array<{ scenario: string; inputLen: number }> }>(
    `/api/runs/${kimi.find((r) => r.key.endsWith("-tp8"))!.id}`,
  );
  expect(
    tp8.benchmarkPoints
      .filter((p) => p.scenario === "long-context")
      .map((p) => p.inputLen)
      .sort((a, b) => a - b),
  ).toEqual([30_000, 60_000, 100_000]);
  expect(tp8.benchmarkPoints.filter((p) => p.scenario === "throughput")).toHaveLength(8);
  // Every page has something (issue 25): agent sessions with todo lists, a plan waiting, serving telemetry.
  const { sessions } = await get<{ sessions: Array<{ key: string }> }>("/api/sessions");
  expect(sessions.filter((x) => x.key.startsWith("demo-")).length).toBeGreaterThanOrEqual(2);
  expect(
    (await get<{ pendingCount: number }>("/api/plans?limit=0")).pendingCount,
  ).toBeGreaterThanOrEqual(1);
  const serving = await get<{ series: Array<{ key: string; points: unknown[] }> }>(
    `/api/runs/${(await observe()).runs.get("serving")!.id}/metrics`,
  );
  expect(
    serving.series.find((x) => x.key === "serving/generation_tok_per_s")?.points.length ?? 0,
  ).toBeGreaterThan(0);
  // Alert rules (issue 25 item 9): the demo's three are listed, and the hung generation worker's fires (30 s after it hangs).
  type Rules = {
    rules: Array<{ name: string; firing: Array<{ runName: string; detail: string }> }>;
  };
  const ruleNames = (await get<Rules>("/api/alert-rules")).rules.map((r) => r.name).sort();
  expect(ruleNames).toEqual([
    "Drafter loss is NaN",
    "Generation stopped producing",
    "Serving KV cache above 60 %",
  ]);
  let firing: Rules["rules"][number]["firing"] = [];
  for (const until = Date.now() + 120_000; Date.now() < until && firing.length === 0;) {
    firing = (await get<Rules>("/api/alert-rules")).rules.find(
      (r) => r.name === "Generation stopped producing",
    )!.firing;
    if (firing.length === 0) await new Promise((r) => setTimeout(r, 2000));
  }
  expect(firing.map((f) => f.runName)).toEqual(["Completions · 100K prompts · Qwen3.6-27B"]);
  expect(firing[0]!.detail).toMatch(/prompts\/s has no new point for \d+ s/);
  // A healthy start never reports the database down.
  expect(output.join("\n")).not.toMatch(/health probe: database down/);

  // Ctrl-C: workers stop, open runs end, then the server and its PostgreSQL stop; exit 0.
  child.kill("SIGINT");
  const code = await Promise.race([
    demoExited,
    new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 60_000)),
  ]);
  expect(code, output.slice(-30).join("\n")).toBe(0);
  expect(output.join("\n")).toMatch(/stopped\.$/m);
  await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  // The embedded PostgreSQL was stopped by the server's shutdown (it removes connection.json).
  await expect(fs.access(path.join(dataDir, "connection.json"))).rejects.toThrow();
}, 360_000);
