import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { readTfRecords } from "@/lib/client/tfrecord";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// `pitwall watch tensorboard LOGDIR` against the real server, on event files written by
// tensorboardX (lib/client/testdata/tensorboard/SOURCE.md): one training run per folder, points
// appear while a file grows, a restarted watcher stores nothing twice.

const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");
const fixtureLogdir = path.join(projectDir, "lib/client/testdata/tensorboard/logdir");

let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const url = await createTestDatabase();
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "tb-host")).token;
  server = await startTestServer({ databaseUrl: url });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL"); // a failed test's watcher
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
});

function startWatcher(logdir: string) {
  const child = spawn(process.execPath, [bin, "watch", "tensorboard", logdir, "--poll-interval", "100"], {
    cwd: projectDir,
    env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const out = { stderr: "" };
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, out, exited };
}

async function until(pred: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Rows and distinct steps of metric `key` of the run named `name`. */
async function metric(name: string, key: string): Promise<{ rows: number; steps: number; maxStep: string | null; kind: string | null }> {
  const res = await db.query<{ rows: string; steps: string; max: string | null }>(
    `SELECT count(*) AS rows, count(DISTINCT m.step) AS steps, max(m.step)::text AS max FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.name = $1 AND m.key = $2`,
    [name, key],
  );
  const run = await db.query<{ kind: string }>(`SELECT kind FROM "Run" WHERE name = $1`, [name]);
  return { rows: Number(res.rows[0]!.rows), steps: Number(res.rows[0]!.steps), maxStep: res.rows[0]!.max, kind: run.rows[0]?.kind ?? null };
}

describe("pitwall watch tensorboard", () => {
  test("runs per folder, points while the file grows, nothing twice after a restart", { timeout: 120_000 }, async () => {
    const logdir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-tb-watch-"));
    await fs.cp(path.join(fixtureLogdir, "nested"), path.join(logdir, "nested"), { recursive: true });
    const srcA = path.join(fixtureLogdir, "drafter-a");
    const name = (await fs.readdir(srcA))[0]!;
    const full = await fs.readFile(path.join(srcA, name));
    const records = readTfRecords(full).records;
    await fs.mkdir(path.join(logdir, "drafter-a"));
    const fileA = path.join(logdir, "drafter-a", name);
    await fs.writeFile(fileA, full.subarray(0, records[20]!.end + 5)); // train/loss 0..16 and a cut record

    let watcher = startWatcher(logdir);
    await until(async () => (await metric("drafter-a", "train/loss")).rows === 17, "the first 17 loss points");
    expect(await metric("nested/drafter-b", "lr")).toEqual({ rows: 4, steps: 4, maxStep: String(2 ** 40 + 5), kind: "training" });
    expect(await metric("nested/drafter-b", "vector")).toMatchObject({ rows: 0 });
    expect(await metric("drafter-a", "train/loss")).toMatchObject({ kind: "training", maxStep: "16" });

    await fs.appendFile(fileA, full.subarray(records[20]!.end + 5)); // the writer goes on
    await until(async () => (await metric("drafter-a", "train/loss")).rows === 50, "the rest of the loss curve");
    expect(await metric("drafter-a", "eval/tau")).toMatchObject({ rows: 5, steps: 5 });
    watcher.child.kill("SIGTERM");
    expect(await watcher.exited).toBe(0);

    watcher = startWatcher(logdir);
    await until(async () => watcher.out.stderr.includes("watching"), "the restarted watcher");
    await until(async () => /drafter-a: 55 point/.test(watcher.out.stderr), "the restarted watcher to read drafter-a again");
    watcher.child.kill("SIGTERM");
    expect(await watcher.exited).toBe(0);
    expect(await metric("drafter-a", "train/loss")).toEqual({ rows: 50, steps: 50, maxStep: "49", kind: "training" });
    expect(await metric("drafter-a", "eval/tau")).toMatchObject({ rows: 5, steps: 5 });
    expect(await metric("nested/drafter-b", "seen")).toMatchObject({ rows: 4, steps: 4 });
    const runs = await db.query(`SELECT count(*)::int AS n FROM "Run" WHERE config->>'source' = 'tensorboard'`);
    expect(runs.rows[0]).toEqual({ n: 2 });
  });
});
