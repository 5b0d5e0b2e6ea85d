import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { EXPECTED_TTFT_P99_MS, startExpositionServer } from "@/test/support/exposition-server";
import { startTestServer, type TestServer } from "@/test/support/server";

// The Python client (clients/python/pitwall/) driven by real `python3` processes against the
// real server and PostgreSQL: what a worker script pushes is what the database holds, across a
// worker restart, with non-finite metrics, a failing block, and the server down at start and
// restarted mid-run.

const clientDir = import.meta.dirname;

let databaseUrl: string;
let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let scriptDir: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "gpu-node-py")).token;
  server = await startTestServer({ databaseUrl });
  scriptDir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-test-"));
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (scriptDir) await fs.rm(scriptDir, { recursive: true, force: true });
});

/** A running `python3 -W error` process with line-wise stdout and a stdin to talk to it. */
interface PythonProcess {
  /** Resolves with the next stdout line parsed as JSON (the scripts print one JSON object per line). */
  next(): Promise<Record<string, unknown>>;
  send(line: string): void;
  /** Resolves when the process exits, with its exit code and everything it wrote to stderr. */
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Writes `source` to a temp file and starts it with python3, the client on PYTHONPATH. */
async function startPython(source: string, env: Record<string, string>): Promise<PythonProcess> {
  const file = path.join(scriptDir, `script-${randomUUID()}.py`);
  await fs.writeFile(file, source);
  const child = spawn("python3", ["-W", "error", file], {
    // No __pycache__ folders in the source tree.
    env: {
      ...process.env,
      PYTHONPATH: clientDir,
      PYTHONUNBUFFERED: "1",
      PYTHONDONTWRITEBYTECODE: "1",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const waiters: Array<(line: string | null) => void> = [];
  let closed = false;
  readline
    .createInterface({ input: child.stdout })
    .on("line", (line) => {
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    })
    .on("close", () => {
      closed = true;
      waiters.splice(0).forEach((w) => w(null));
    });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stderr })),
  );
  return {
    async next() {
      const line = lines.length
        ? lines.shift()!
        : closed
          ? null
          : await new Promise<string | null>((r) => waiters.push(r));
      if (line === null)
        throw new Error(`python exited before printing a line; stderr:\n${(await exited).stderr}`);
      return JSON.parse(line) as Record<string, unknown>;
    },
    send(line: string) {
      child.stdin.write(`${line}\n`);
    },
    exited,
  };
}

/** A TCP port nothing listens on right now (the OS picks it; we release it at once). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function runRow(key: string) {
  const res = await db.query(
    `SELECT id, status, error, "endedAt", total, unit, "outputTail", name FROM "Run" WHERE key = $1`,
    [key],
  );
  return res.rows[0] as {
    id: number;
    status: string;
    error: string | null;
    endedAt: Date | null;
    total: number;
    unit: string;
    outputTail: string | null;
    name: string;
  };
}

describe("Python client against the real server", () => {
  test(
    "a worker restart keeps counters monotonic; NaN/Infinity, 64-bit steps, artifacts and events are stored; a raising block ends the run failed",
    { timeout: 60_000 },
    async () => {
      const runKey = `py-extract-${randomUUID()}`;
      const env = { PITWALL_URL: server.url, PITWALL_TOKEN: token, RUN_KEY: runKey };

      // First boot: two progress readings, delivered, then the process dies without run.end.
      const first = await startPython(
        `
import json, os
from pitwall import Pitwall
pw = Pitwall(worker_id="gpu0")
run = pw.run(kind="extraction", name="hidden states 914K", key=os.environ["RUN_KEY"], total=914000, unit="samples",
             config={"model": "Qwen3-27B", "s3MaxInflight": 100})
run.progress(1000, counters={"s3.uploaded": 1000, "s3.bytes": 1000 * 1100000, "s3.inflight": 90, "local.deleted": 990, "disk.freeBytes": 500000000000})
run.progress(1010, counters={"s3.uploaded": 1010, "s3.bytes": 1010 * 1100000, "s3.inflight": 100, "local.deleted": 1000, "disk.freeBytes": 400000000000})
delivered = pw.flush(30)
print(json.dumps({"boot": pw.boot_id, "delivered": delivered, "errors": [e._asdict() for e in pw.errors]}), flush=True)
os._exit(0)  # killed: no run.end, no atexit flush
`,
        env,
      );
      const firstOut = await first.next();
      expect(firstOut).toMatchObject({ delivered: true, errors: [] });
      expect((await first.exited).code).toBe(0);

      // Second boot of the same worker: counters restart from 0; the block raises.
      const second = await startPython(
        `
import json, os
from pitwall import Pitwall
pw = Pitwall(worker_id="gpu0")
try:
    with pw.run(kind="extraction", name="hidden states 914K", key=os.environ["RUN_KEY"], total=914000, unit="samples") as run:
        run.progress(1015, counters={"s3.uploaded": 5, "s3.bytes": 5 * 1100000, "s3.inflight": 3, "local.deleted": 4, "disk.freeBytes": 390000000000})
        run.progress(1025, counters={"s3.uploaded": 15, "s3.bytes": 15 * 1100000, "s3.inflight": 7, "local.deleted": 14, "disk.freeBytes": 380000000000})
        run.metrics(0, loss=float("nan"), lr=3e-4)
        run.metrics(1, loss=float("inf"))
        run.metrics(2, loss=float("-inf"))
        run.metrics(3, loss=0.5)
        run.metrics(2**60, {"train/tokens": 1.5e12})
        run.artifact("s3://hidden-states/ckpt/step-3", kind="checkpoint", size_bytes=53687091200, step=3)
        run.event("checkpoint uploaded", level="info")
        raise RuntimeError("CUDA out of memory at step 4")
finally:
    print(json.dumps({"boot": pw.boot_id, "errors": [e._asdict() for e in pw.errors], "stats": pw.stats()}), flush=True)
`,
        env,
      );
      const secondOut = await second.next();
      const { code, stderr } = await second.exited;
      expect(code).toBe(1);
      expect(stderr).toContain("RuntimeError: CUDA out of memory at step 4");
      expect(secondOut).toMatchObject({
        errors: [],
        stats: { queued: 0, dropped: 0, rejected: 0 },
      });
      expect(secondOut.boot).not.toBe(firstOut.boot);

      const run = await runRow(runKey);
      expect(run).toMatchObject({
        status: "failed",
        error: "RuntimeError: CUDA out of memory at step 4",
        total: 914000,
        unit: "samples",
        name: "hidden states 914K",
      });
      expect(run.endedAt).toBeInstanceOf(Date);
      expect(run.outputTail).toContain('raise RuntimeError("CUDA out of memory at step 4")');

      const worker = (
        await db.query(
          `SELECT "bootId", done, counters FROM "WorkerProgress" WHERE "runId" = $1 AND "workerId" = 'gpu0'`,
          [run.id],
        )
      ).rows;
      expect(worker).toHaveLength(1);
      expect(worker[0]).toEqual({
        bootId: secondOut.boot,
        done: 1025,
        counters: {
          "s3.uploaded": 1025,
          "s3.bytes": 1025 * 1_100_000,
          "s3.inflight": 7,
          "local.deleted": 1014,
          "disk.freeBytes": 380_000_000_000,
        },
      });
      // Every reading arrived, including the ones held back by the 1 s rate limit (sent on flush/end).
      const samples = (
        await db.query(
          `SELECT "bootId", done FROM "ProgressSample" WHERE "runId" = $1 ORDER BY id`,
          [run.id],
        )
      ).rows;
      expect(samples).toEqual([
        { bootId: firstOut.boot, done: 1000 },
        { bootId: firstOut.boot, done: 1010 },
        { bootId: secondOut.boot, done: 1015 },
        { bootId: secondOut.boot, done: 1025 },
      ]);

      const metrics = (
        await db.query(
          `SELECT key, step::text AS step, value = 'NaN'::float8 AS "isNaN", value::text AS value FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step`,
          [run.id],
        )
      ).rows;
      expect(metrics).toEqual([
        { key: "loss", step: "0", isNaN: true, value: "NaN" },
        { key: "loss", step: "1", isNaN: false, value: "Infinity" },
        { key: "loss", step: "2", isNaN: false, value: "-Infinity" },
        { key: "loss", step: "3", isNaN: false, value: "0.5" },
        { key: "lr", step: "0", isNaN: false, value: "0.0003" },
        { key: "train/tokens", step: "1152921504606846976", isNaN: false, value: "1500000000000" },
      ]);

      const artifacts = (
        await db.query(
          `SELECT kind, uri, "sizeBytes", step::text AS step FROM "Artifact" WHERE "runId" = $1`,
          [run.id],
        )
      ).rows;
      expect(artifacts).toEqual([
        {
          kind: "checkpoint",
          uri: "s3://hidden-states/ckpt/step-3",
          sizeBytes: 53_687_091_200,
          step: "3",
        },
      ]);
      const events = (
        await db.query(
          `SELECT level, message, code FROM "RunEvent" WHERE "runId" = $1 ORDER BY id`,
          [run.id],
        )
      ).rows;
      expect(events).toEqual([{ level: "info", message: "checkpoint uploaded", code: null }]);
    },
  );

  test(
    "the server down at start and restarted mid-run: the loop never blocks, and every step arrives exactly once",
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const runKey = `py-outage-${randomUUID()}`;
      const py = await startPython(
        `
import json, os, sys
from pitwall import Pitwall
pw = Pitwall(max_backoff_s=1, flush_timeout_s=60)

def wait_go():
    assert sys.stdin.readline().strip() == "go"

def steps(first, last):
    for step in range(first, last):
        run.metrics(step, loss=1.0 / (step + 1))
        run.event("step {}".format(step))
        run.progress(step + 1, counters={"steps": step + 1})

with pw.run(kind="training", name="survives outages", key=os.environ["RUN_KEY"]) as run:
    steps(0, 50)  # nothing listens yet
    print(json.dumps({"phase": "down-at-start", "stats": pw.stats()}), flush=True)
    wait_go()  # the server is up now
    print(json.dumps({"phase": "flushed", "delivered": pw.flush(60), "stats": pw.stats()}), flush=True)
    wait_go()  # the server is stopped now
    steps(50, 100)
    print(json.dumps({"phase": "down-mid-run", "stats": pw.stats()}), flush=True)
    wait_go()  # a new server is up on the same port
    steps(100, 150)
print(json.dumps({"phase": "ended", "stats": pw.stats(), "errors": [e._asdict() for e in pw.errors]}), flush=True)
`,
        { PITWALL_URL: url, PITWALL_TOKEN: token, RUN_KEY: runKey },
      );
      let outageServer: TestServer | null = null;
      try {
        const downAtStart = await py.next();
        expect(downAtStart).toMatchObject({
          phase: "down-at-start",
          stats: { dropped: 0, sent: 0 },
        });
        // hello + run.start + 50 × (metrics, event) + the first progress, all held in memory.
        expect((downAtStart.stats as { queued: number }).queued).toBeGreaterThanOrEqual(103);

        outageServer = await startTestServer({ databaseUrl, port });
        py.send("go");
        expect(await py.next()).toMatchObject({
          phase: "flushed",
          delivered: true,
          stats: { queued: 0, rejected: 0 },
        });

        await outageServer.stop();
        outageServer = null;
        py.send("go");
        const downMidRun = await py.next();
        expect(downMidRun).toMatchObject({ phase: "down-mid-run", stats: { dropped: 0 } });
        expect((downMidRun.stats as { queued: number }).queued).toBeGreaterThanOrEqual(100);

        outageServer = await startTestServer({ databaseUrl, port });
        py.send("go");
        expect(await py.next()).toMatchObject({
          phase: "ended",
          stats: { queued: 0, dropped: 0, rejected: 0 },
          errors: [],
        });
        const { code, stderr } = await py.exited;
        expect(code, stderr).toBe(0);
        // The outage is reported through logging; nothing else (no warnings, no tracebacks).
        expect(stderr).toContain("pitwall: cannot deliver to");
        expect(stderr).not.toMatch(/Traceback|Warning:|unexpected error/);
      } finally {
        await outageServer?.stop();
      }

      const run = await runRow(runKey);
      expect(run.status).toBe("succeeded");
      const metricSteps = (
        await db.query(
          `SELECT step::int AS step FROM "MetricPoint" WHERE "runId" = $1 AND key = 'loss' ORDER BY step`,
          [run.id],
        )
      ).rows.map((r: { step: number }) => r.step);
      expect(metricSteps).toEqual(Array.from({ length: 150 }, (_, i) => i));
      // Events have no natural key: a frame applied twice would show up twice.
      const events = (
        await db.query(
          `SELECT message, count(*)::int AS n FROM "RunEvent" WHERE "runId" = $1 AND code IS NULL GROUP BY message`,
          [run.id],
        )
      ).rows as Array<{ message: string; n: number }>;
      expect(events).toHaveLength(150);
      expect(events.filter((e) => e.n !== 1)).toEqual([]);
      const worker = (
        await db.query(`SELECT done, counters FROM "WorkerProgress" WHERE "runId" = $1`, [run.id])
      ).rows;
      expect(worker).toHaveLength(1);
      expect(worker[0]).toEqual({ done: 150, counters: { steps: 150 } });
    },
  );

  test(
    "a server kill -9 mid-stream and restart: every step arrives exactly once",
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      const runKey = `py-crash-${randomUUID()}`;
      let crashServer: TestServer | null = await startTestServer({ databaseUrl, port });
      const py = await startPython(
        `
import json, os, time
from pitwall import Pitwall
pw = Pitwall(max_backoff_s=1, flush_timeout_s=90)
with pw.run(kind="training", name="survives a crash", key=os.environ["RUN_KEY"]) as run:
    for step in range(300):
        run.metrics(step, loss=1.0 / (step + 1))
        run.event("step {}".format(step))
        if step == 60:
            print(json.dumps({"phase": "streaming"}), flush=True)
        time.sleep(0.01)
print(json.dumps({"phase": "ended", "stats": pw.stats()}), flush=True)
`,
        { PITWALL_URL: `http://127.0.0.1:${port}`, PITWALL_TOKEN: token, RUN_KEY: runKey },
      );
      try {
        expect(await py.next()).toMatchObject({ phase: "streaming" });
        await crashServer.kill(); // SIGKILL: no graceful shutdown, requests cut mid-flight
        crashServer = await startTestServer({ databaseUrl, port });
        expect(await py.next()).toMatchObject({
          phase: "ended",
          stats: { queued: 0, dropped: 0, rejected: 0 },
        });
        expect((await py.exited).code).toBe(0);
      } finally {
        await crashServer?.stop();
      }
      const run = await runRow(runKey);
      expect(run.status).toBe("succeeded");
      const events = (
        await db.query(
          `SELECT message, count(*)::int AS n FROM "RunEvent" WHERE "runId" = $1 AND code IS NULL GROUP BY message`,
          [run.id],
        )
      ).rows as Array<{ message: string; n: number }>;
      expect(events).toHaveLength(300);
      expect(events.filter((e) => e.n !== 1)).toEqual([]);
      const steps = (
        await db.query(
          `SELECT count(DISTINCT step)::int AS n FROM "MetricPoint" WHERE "runId" = $1 AND key = 'loss'`,
          [run.id],
        )
      ).rows[0].n;
      expect(steps).toBe(300);
    },
  );

  test(
    "the pure-Python unit tests (test_pitwall.py, test_pitwall_spool.py, test_pitwall_scrape.py) pass under python3 -W error",
    { timeout: 120_000 },
    async () => {
      const child = spawn(
        "python3",
        [
          "-W",
          "error",
          "-m",
          "unittest",
          "test_pitwall",
          "test_pitwall_spool",
          "test_pitwall_scrape",
        ],
        {
          cwd: clientDir,
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect(code, output).toBe(0);
      expect(output).toMatch(/^OK$/m);
    },
  );

  test(
    "pitwall_scrape.py scrapes a changing SGLang /metrics into a serving run until SIGTERM",
    { timeout: 60_000 },
    async () => {
      const engine = await startExpositionServer();
      try {
        const child = spawn(
          "python3",
          [
            "-W",
            "error",
            path.join(clientDir, "pitwall_scrape.py"),
            engine.url,
            "--interval",
            "0.3",
            "--host",
            "py-gpu-1",
          ],
          {
            cwd: clientDir,
            env: {
              ...process.env,
              PITWALL_URL: server.url,
              PITWALL_TOKEN: token,
              PYTHONDONTWRITEBYTECODE: "1",
            },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
        const deadline = Date.now() + 20_000;
        while (engine.scrapes() < 5 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 100));
        child.kill("SIGTERM");
        expect(await exited, stderr).toBe(0);
        const run = await runRow(`serving:py-gpu-1:${new URL(engine.url).port}/metrics`);
        expect(run.status).toBe("ended");
        const latest = (
          await db.query(
            `SELECT DISTINCT ON (key) key, value FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step DESC`,
            [run.id],
          )
        ).rows as Array<{ key: string; value: number }>;
        const byKey = Object.fromEntries(latest.map((r) => [r.key, r.value]));
        // The same hand computation as the Node scraper's (test/support/exposition-server.ts).
        expect(byKey["serving/ttft_ms_p99"]).toBeCloseTo(EXPECTED_TTFT_P99_MS, 6);
        expect(byKey["serving/up"]).toBe(1);
        expect(byKey["serving/accept_length"]).toBeCloseTo(3.1, 9);
      } finally {
        await engine.close();
      }
    },
  );

  test("examples/extraction.py runs end to end", { timeout: 60_000 }, async () => {
    const runKey = `py-example-${randomUUID()}`;
    const py = await startPython(
      `
import runpy, sys
sys.argv = ["extraction.py", "--samples", "2500", "--worker", "gpu3", "--key", "${runKey}"]
runpy.run_path(${JSON.stringify(path.join(clientDir, "examples", "extraction.py"))}, run_name="__main__")
`,
      { PITWALL_URL: server.url, PITWALL_TOKEN: token },
    );
    const { code, stderr } = await py.exited;
    expect(code, stderr).toBe(0);
    expect(stderr).toBe("");
    const run = await runRow(runKey);
    expect(run).toMatchObject({ status: "succeeded", total: 2500, unit: "samples" });
    const worker = (
      await db.query(
        `SELECT done, counters FROM "WorkerProgress" WHERE "runId" = $1 AND "workerId" = 'gpu3'`,
        [run.id],
      )
    ).rows[0];
    expect(worker.done).toBe(2500);
    expect(worker.counters["s3.uploaded"]).toBe(2500);
    expect(worker.counters["local.deleted"]).toBe(2500);
    const artifacts = (await db.query(`SELECT uri FROM "Artifact" WHERE "runId" = $1`, [run.id]))
      .rows;
    expect(artifacts).toEqual([{ uri: "s3://hidden-states/example/manifest.json" }]);
  });

  test(
    "examples/training.py: a diverging loss ends the run failed with the exception",
    { timeout: 60_000 },
    async () => {
      const runKey = `py-train-${randomUUID()}`;
      const py = await startPython(
        `
import runpy, sys
sys.argv = ["training.py", "--steps", "300", "--ckpt-every", "100", "--diverge-at", "250", "--key", "${runKey}"]
runpy.run_path(${JSON.stringify(path.join(clientDir, "examples", "training.py"))}, run_name="__main__")
`,
        { PITWALL_URL: server.url, PITWALL_TOKEN: token },
      );
      const { code, stderr } = await py.exited;
      expect(code).toBe(1);
      expect(stderr).toContain("FloatingPointError: loss is NaN at step 250");
      const run = await runRow(runKey);
      expect(run).toMatchObject({
        status: "failed",
        error: "FloatingPointError: loss is NaN at step 250",
        total: 300,
        unit: "steps",
      });
      const loss = (
        await db.query(
          `SELECT count(*)::int AS n, max(step)::int AS "maxStep", bool_or(value = 'NaN'::float8) AS "anyNaN" FROM "MetricPoint" WHERE "runId" = $1 AND key = 'loss'`,
          [run.id],
        )
      ).rows[0];
      expect(loss).toEqual({ n: 250, maxStep: 250, anyNaN: true });
      const checkpoints = (
        await db.query(
          `SELECT step::int AS step FROM "Artifact" WHERE "runId" = $1 AND kind = 'checkpoint' ORDER BY step`,
          [run.id],
        )
      ).rows;
      expect(checkpoints).toEqual([{ step: 100 }, { step: 200 }]);
    },
  );
});
