import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// `pitwall run`, `push` and `heartbeat` as a user runs them (bin/pitwall.mjs), against the real
// server and database. The read API does not expose progress yet, so progress is read from the
// tables directly.

const exec = promisify(execFile);
const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");

let server: SharedTestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let tmp: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "cli-worker")).token;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-worker-cli-"));
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.end();
});

/** Runs `pitwall <args>` to completion; never rejects on exit code. */
async function pitwall(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], {
      cwd: projectDir,
      env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts `pitwall <args>` in the background, collecting its output. */
function startPitwall(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: projectDir,
    env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, out, exited };
}

/** Polls `pred` every 50 ms until it holds; throws after `timeoutMs`. */
async function until(
  pred: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function writeScript(name: string, body: string): Promise<string> {
  const file = path.join(tmp, name);
  await fs.writeFile(file, body);
  return file;
}

async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

interface RunRow {
  id: number;
  key: string;
  status: string;
  exitCode: number | null;
  error: string | null;
  outputTail: string | null;
  config: Record<string, unknown>;
  tags: string[];
}

async function runByName(name: string): Promise<RunRow> {
  const res = await db.query<RunRow>(
    `SELECT id, key, status, "exitCode", error, "outputTail", config, tags FROM "Run" WHERE name = $1`,
    [name],
  );
  expect(res.rows).toHaveLength(1);
  return res.rows[0]!;
}

// What the command under test prints: stdout lines with PITWALL progress, a tqdm bar on stderr
// drawn with \r, then exit code 3.
const STDOUT_LINES = [
  "starting extraction",
  'PITWALL {"counters":{"s3.uploaded":5,"s3.inflight":3},"metrics":{"loss":0.5},"step":10}',
  'PITWALL {"counters":{"s3.uploaded":7,"s3.inflight":0},"metrics":{"loss":NaN},"step":11}',
  'PITWALL {"event":{"level":"warn","message":"disk 90% full"},"artifact":{"kind":"checkpoint","uri":"s3://bucket/ckpt-11","sizeBytes":1048576,"step":11}}',
  'PITWALL {"bogus":1}',
  "done; failing on purpose",
];
const STDERR_TEXT =
  "\r  0%|          | 0/1000 [00:00<?, ?it/s]\r 45%|████▌     | 450/1000 [00:10<00:12, 45.00it/s]\r 60%|██████    | 600/1000 [00:12<00:08, 50.00it/s]\n";

describe("pitwall run", () => {
  test("a command that prints progress and exits 3: output passed through, run failed with exit code 3, progress stored", async () => {
    const script = await writeScript(
      "extract.mjs",
      `const lines = ${JSON.stringify(STDOUT_LINES)};
       process.stdout.write(lines.slice(0, 2).join("\\n") + "\\n");
       process.stderr.write(${JSON.stringify(STDERR_TEXT)});
       process.stdout.write(lines.slice(2).join("\\n") + "\\n");
       process.exitCode = 3;`,
    );
    const name = `extract ${randomUUID()}`;
    const res = await pitwall([
      "run",
      "--kind",
      "extraction",
      "--name",
      name,
      "--unit",
      "samples",
      "--tag",
      "cli-run",
      "nightly",
      "--stall-after",
      "300",
      "--",
      "node",
      script,
    ]);
    expect(res.code).toBe(3);
    // The command's stdout is passed through byte for byte; our own notes go to stderr only.
    expect(res.stdout).toBe(STDOUT_LINES.join("\n") + "\n");
    expect(res.stderr).toContain(STDERR_TEXT);
    expect(res.stderr).toContain("pitwall: ignored PITWALL line");
    expect(res.stderr).toContain("bogus");

    const run = await runByName(name);
    expect(run).toMatchObject({
      status: "failed",
      exitCode: 3,
      error: "exited with code 3",
      tags: ["cli-run", "nightly"],
    });
    const { stdout: head } = await exec("git", ["rev-parse", "HEAD"], { cwd: projectDir });
    expect(run.config).toEqual({
      command: ["node", script],
      commandLine: `node ${script}`,
      cwd: projectDir,
      gitCommit: head.trim(),
      hostname: os.hostname(),
    });
    expect(run.key).toMatch(/^run-/);
    // stdout and stderr are separate pipes, so only the order within each stream is defined.
    const tail = run.outputTail!.split("\n");
    expect(tail.filter((l) => !l.includes("%|"))).toEqual(STDOUT_LINES);
    expect(tail.filter((l) => l.includes("%|"))).toEqual([
      " 60%|██████    | 600/1000 [00:12<00:08, 50.00it/s]",
    ]);

    const worker = await db.query(
      `SELECT done, total, unit, counters FROM "WorkerProgress" WHERE "runId" = $1`,
      [run.id],
    );
    expect(worker.rows).toEqual([
      { done: 600, total: 1000, unit: "samples", counters: { "s3.uploaded": 7, "s3.inflight": 0 } },
    ]);
    const samples = await db.query(
      `SELECT count(*)::int AS n FROM "ProgressSample" WHERE "runId" = $1`,
      [run.id],
    );
    expect(samples.rows[0].n).toBeGreaterThanOrEqual(1);
    const metrics = await db.query<{ step: string; value: number }>(
      `SELECT step, value FROM "MetricPoint" WHERE "runId" = $1 AND key = 'loss' ORDER BY step`,
      [run.id],
    );
    expect(metrics.rows.map((r) => Number(r.step))).toEqual([10, 11]);
    expect(metrics.rows[0]!.value).toBe(0.5);
    expect(metrics.rows[1]!.value).toBeNaN();
    const events = await db.query(
      `SELECT level, message FROM "RunEvent" WHERE "runId" = $1 AND code IS NULL`,
      [run.id],
    );
    expect(events.rows).toEqual([{ level: "warn", message: "disk 90% full" }]);
    const artifacts = await db.query(
      `SELECT kind, uri, "sizeBytes", step FROM "Artifact" WHERE "runId" = $1`,
      [run.id],
    );
    expect(artifacts.rows).toEqual([
      { kind: "checkpoint", uri: "s3://bucket/ckpt-11", sizeBytes: 1048576, step: "11" },
    ]);
    const host = await db.query(
      `SELECT "lastHeartbeatAt", facts FROM "Host" WHERE name = 'cli-worker'`,
    );
    expect(host.rows[0].lastHeartbeatAt).not.toBeNull();
    expect(host.rows[0].facts.cpuCount).toBeGreaterThan(0);
  });

  test("SIGTERM is forwarded to the command; the run ends cancelled", async () => {
    const script = await writeScript(
      "forever.mjs",
      `console.log("ready"); setInterval(() => {}, 1000);`,
    );
    const name = `cancel ${randomUUID()}`;
    const p = startPitwall(["run", "--kind", "generation", "--name", name, "--", "node", script]);
    await until(() => p.out.stdout.includes("ready"), "the command to start");
    p.child.kill("SIGTERM");
    const exit = await p.exited;
    expect(exit.code).toBe(143);
    const run = await runByName(name);
    expect(run).toMatchObject({ status: "cancelled", exitCode: 143, error: "killed by SIGTERM" });
  });

  test("the command's output reaches the run while it runs; --no-live-output keeps it until the end", async () => {
    const script = await writeScript(
      "chatty.mjs",
      `console.log("loading shard 1"); console.error("WARN slow disk"); setInterval(() => {}, 1000);`,
    );
    const tailOf = async (name: string) => {
      const r = await db.query<{ outputTail: string | null }>(
        `SELECT "outputTail" FROM "Run" WHERE name = $1`,
        [name],
      );
      return r.rows[0]?.outputTail ?? null;
    };
    const name = `live output ${randomUUID()}`;
    const p = startPitwall(["run", "--kind", "generation", "--name", name, "--", "node", script]);
    // Still running: the lines are in the run already.
    await until(
      async () =>
        (await tailOf(name))?.split("\n").sort().join("|") === "WARN slow disk|loading shard 1",
      "the live output lines",
    );
    expect(p.child.exitCode).toBeNull();
    p.child.kill("SIGTERM");
    await p.exited;

    const quiet = `quiet output ${randomUUID()}`;
    const q = startPitwall([
      "run",
      "--kind",
      "generation",
      "--name",
      quiet,
      "--no-live-output",
      "--",
      "node",
      script,
    ]);
    await until(() => q.out.stdout.includes("loading shard 1"), "the command to start");
    await until(
      async () => (await db.query(`SELECT 1 FROM "Run" WHERE name = $1`, [quiet])).rowCount === 1,
      "the run",
    );
    await new Promise((r) => setTimeout(r, 2500)); // > 2 send intervals
    expect(await tailOf(quiet)).toBeNull();
    q.child.kill("SIGTERM");
    await q.exited;
    expect((await tailOf(quiet))?.split("\n").sort()).toEqual([
      "WARN slow disk",
      "loading shard 1",
    ]);
  });

  test("--spool: frames of a pitwall process killed while the server was unreachable are sent by the next one", async () => {
    const spool = path.join(tmp, "spool");
    const name = `spooled ${randomUUID()}`;
    const key = `spooled-${randomUUID()}`;
    const first = await writeScript(
      "first.mjs",
      `console.log('PITWALL {"done":5,"total":10}'); console.log("ready " + process.pid); setInterval(() => {}, 1000);`,
    );
    const p = startPitwall(
      [
        "run",
        "--kind",
        "extraction",
        "--name",
        name,
        "--key",
        key,
        "--spool",
        spool,
        "--",
        "node",
        first,
      ],
      { PITWALL_URL: await deadUrl() },
    );
    const framesFile = path.join(spool, "frames.jsonl");
    await until(
      async () =>
        (await fs.readFile(framesFile, "utf8").catch(() => "")).includes('"run.progress"'),
      "the progress frame in the spool",
    );
    const childPid = Number(/ready (\d+)/.exec(p.out.stdout)![1]);
    p.child.kill("SIGKILL"); // pitwall dies without any cleanup…
    process.kill(-childPid, "SIGKILL"); // …and so does its command (its own process group)
    await p.exited;

    const second = await writeScript(
      "second.mjs",
      `console.log('PITWALL {"done":10,"total":10}');`,
    );
    const res = await pitwall([
      "run",
      "--kind",
      "extraction",
      "--name",
      name,
      "--key",
      key,
      "--spool",
      spool,
      "--",
      "node",
      second,
    ]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/resending \d+ frame\(s\) left in/);
    const run = await runByName(name);
    expect(run.status).toBe("succeeded");
    const samples = await db.query<{ done: number }>(
      `SELECT done FROM "ProgressSample" WHERE "runId" = $1 ORDER BY ts, id`,
      [run.id],
    );
    expect(samples.rows.map((r) => r.done)).toEqual([5, 10]);
    expect((await fs.readFile(framesFile, "utf8")).trim()).toBe("");
  });

  test("a bad token fails before running the command", async () => {
    const marker = path.join(tmp, "should-not-exist");
    const res = await pitwall(
      [
        "run",
        "--kind",
        "eval",
        "--name",
        "nope",
        "--",
        "node",
        "-e",
        `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`,
      ],
      {
        PITWALL_TOKEN: "pw_wrong_token_00000000000000000000",
      },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("refused the worker token");
    await expect(fs.access(marker)).rejects.toThrow();
  });
});

describe("pitwall push", () => {
  test("JSON lines with one bad frame: exit 1, the bad one reported with its line, the good ones stored", async () => {
    const runKey = `push-${randomUUID()}`;
    const file = path.join(tmp, "frames.jsonl");
    await fs.writeFile(
      file,
      [
        `{"v":1,"id":"${runKey}-1","type":"run.start","run":"${runKey}","name":"${runKey}","kind":"training"}`,
        `{"v":1,"id":"${runKey}-2","type":"run.metrics","run":"${runKey}","points":[{"key":"loss","step":1,"value":NaN},{"key":"loss","step":2,"value":-Infinity}]}`,
        `{"v":1,"id":"${runKey}-3","type":"run.metrics","run":"${runKey}","points":[{"key":"loss","step":3,"value":"high"}]}`,
        `{"type":"run.end","run":"${runKey}","status":"succeeded"}`,
      ].join("\n") + "\n",
    );
    const res = await pitwall(["push", file]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("pushed 4 frame(s): 3 accepted, 1 rejected");
    expect(res.stderr).toContain(`${file}:3: frame ${runKey}-3 rejected: invalid_frame`);
    const run = await runByName(runKey);
    expect(run.status).toBe("succeeded");
    const metrics = await db.query<{ step: string; value: number }>(
      `SELECT step, value FROM "MetricPoint" WHERE "runId" = $1 ORDER BY step`,
      [run.id],
    );
    expect(metrics.rows.map((r) => Number(r.step))).toEqual([1, 2]);
    expect(metrics.rows[0]!.value).toBeNaN();
    expect(metrics.rows[1]!.value).toBe(-Infinity);

    // Pushing the same file again changes nothing: ids, including the one generated for the
    // id-less run.end, are stable, so the server acks without applying (endedAt stays put).
    const endedAt = async () =>
      (await db.query(`SELECT "endedAt" FROM "Run" WHERE id = $1`, [run.id])).rows[0]
        .endedAt as Date;
    const firstEnd = await endedAt();
    const again = await pitwall(["push", file]);
    expect(again.stdout).toContain("3 accepted, 1 rejected");
    expect(await endedAt()).toEqual(firstEnd);
  });

  test("a JSON array from stdin", async () => {
    const runKey = `push-stdin-${randomUUID()}`;
    const p = startPitwall(["push", "-"]);
    p.child.stdin.end(
      JSON.stringify([
        { v: 1, id: `${runKey}-s`, type: "run.start", run: runKey, name: runKey, kind: "eval" },
      ]),
    );
    const exit = await p.exited;
    expect(exit.code).toBe(0);
    expect(p.out.stdout).toContain("pushed 1 frame(s): 1 accepted, 0 rejected");
    expect((await runByName(runKey)).status).toBe("running");
  });
});

describe("pitwall heartbeat", () => {
  test("--once sets the host's last heartbeat and stores its facts", async () => {
    const before = await db.query(
      `SELECT count(*)::int AS n FROM "HostSample" s JOIN "Host" h ON h.id = s."hostId" WHERE h.name = 'cli-worker'`,
    );
    const res = await pitwall(["heartbeat", "--once", "--interval", "15"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`heartbeat sent: ${os.hostname()}`);
    const host = await db.query(
      `SELECT "lastHeartbeatAt", "heartbeatIntervalS", facts FROM "Host" WHERE name = 'cli-worker'`,
    );
    const row = host.rows[0];
    expect(Date.now() - new Date(row.lastHeartbeatAt).getTime()).toBeLessThan(60_000);
    expect(row.heartbeatIntervalS).toBe(15);
    expect(row.facts.hostname).toBe(os.hostname());
    expect(row.facts.cpuCount).toBe(os.cpus().length);
    expect(row.facts.ramTotalBytes).toBeGreaterThan(0);
    expect(row.facts.diskFreeBytes).toBeGreaterThan(0);
    expect(row.facts.cpuPct).toBeGreaterThanOrEqual(0);
    const after = await db.query(
      `SELECT count(*)::int AS n FROM "HostSample" s JOIN "Host" h ON h.id = s."hostId" WHERE h.name = 'cli-worker'`,
    );
    expect(after.rows[0].n).toBe(before.rows[0].n + 1);
  });
});
