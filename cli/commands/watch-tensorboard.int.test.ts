import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { readTfRecords } from "@/lib/client/tfrecord";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// `pitwall watch tensorboard LOGDIR` against the real server, on event files written by
// tensorboardX (lib/client/testdata/tensorboard/SOURCE.md): one training run per folder, points
// appear while a file grows; after kill -9 a restarted watcher continues from its saved read
// positions (only what was written since), and stores nothing twice.

const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");
const fixtureLogdir = path.join(projectDir, "lib/client/testdata/tensorboard/logdir");

let server: SharedTestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "tb-host")).token;
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL"); // a failed test's watcher
  await prisma?.$disconnect();
  await db?.end();
});

function startWatcher(logdir: string, stateHome: string, extra: string[] = []) {
  const child = spawn(
    process.execPath,
    [bin, "watch", "tensorboard", logdir, "--poll-interval", "100", ...extra],
    {
      cwd: projectDir,
      env: {
        ...process.env,
        PITWALL_URL: server.url,
        PITWALL_TOKEN: token,
        XDG_STATE_HOME: stateHome,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  const out = { stderr: "" };
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, out, exited };
}

async function until(
  pred: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Rows and distinct steps of metric `key` of the run named `name`. */
async function metric(
  name: string,
  key: string,
): Promise<{ rows: number; steps: number; maxStep: string | null; kind: string | null }> {
  const res = await db.query<{ rows: string; steps: string; max: string | null }>(
    `SELECT count(*) AS rows, count(DISTINCT m.step) AS steps, max(m.step)::text AS max FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.name = $1 AND m.key = $2`,
    [name, key],
  );
  const run = await db.query<{ kind: string }>(`SELECT kind FROM "Run" WHERE name = $1`, [name]);
  return {
    rows: Number(res.rows[0]!.rows),
    steps: Number(res.rows[0]!.steps),
    maxStep: res.rows[0]!.max,
    kind: run.rows[0]?.kind ?? null,
  };
}

/** The saved read position of `file` in the watcher's state file under `stateHome`, or -1. */
async function savedOffset(stateHome: string, file: string): Promise<number> {
  const dir = path.join(stateHome, "pitwall", "tensorboard");
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const n of names.filter((x) => x.endsWith(".json"))) {
    const state = JSON.parse(await fs.readFile(path.join(dir, n), "utf8")) as {
      files: Record<string, { offset: number }>;
    };
    if (state.files[file]) return state.files[file].offset;
  }
  return -1;
}

describe("pitwall watch tensorboard", () => {
  test(
    "runs per folder, points while the file grows; after kill -9 it continues where it was, nothing twice or lost",
    { timeout: 120_000 },
    async () => {
      const logdir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-tb-watch-"));
      const stateHome = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-tb-state-"));
      await fs.cp(path.join(fixtureLogdir, "nested"), path.join(logdir, "nested"), {
        recursive: true,
      });
      const srcA = path.join(fixtureLogdir, "drafter-a");
      const name = (await fs.readdir(srcA))[0]!;
      const full = await fs.readFile(path.join(srcA, name));
      const records = readTfRecords(full).records;
      await fs.mkdir(path.join(logdir, "drafter-a"));
      const fileA = path.join(logdir, "drafter-a", name);
      await fs.writeFile(fileA, full.subarray(0, records[20]!.end + 5)); // train/loss 0..16 and a cut record

      let watcher = startWatcher(logdir, stateHome);
      await until(
        async () => (await metric("drafter-a", "train/loss")).rows === 17,
        "the first 17 loss points",
      );
      expect(await metric("nested/drafter-b", "lr")).toEqual({
        rows: 4,
        steps: 4,
        maxStep: String(2 ** 40 + 5),
        kind: "training",
      });
      expect(await metric("nested/drafter-b", "vector")).toMatchObject({ rows: 0 });
      expect(await metric("drafter-a", "train/loss")).toMatchObject({
        kind: "training",
        maxStep: "16",
      });
      // The cut record is not read yet: the saved position is the end of the last whole record.
      await until(
        async () => (await savedOffset(stateHome, fileA)) === records[20]!.end,
        "the read position saved after the acks",
      );

      await fs.appendFile(fileA, full.subarray(records[20]!.end + 5)); // the writer goes on
      await until(
        async () => (await metric("drafter-a", "train/loss")).rows === 50,
        "the rest of the loss curve",
      );
      expect(await metric("drafter-a", "eval/tau")).toMatchObject({ rows: 5, steps: 5 });
      await until(
        async () => (await savedOffset(stateHome, fileA)) === full.length,
        "the read position at the file's end",
      );
      watcher.child.kill("SIGKILL");
      await watcher.exited;

      // A new run folder appears while the watcher is down; the restarted one reads only that.
      await fs.cp(path.join(fixtureLogdir, "nested", "drafter-b"), path.join(logdir, "drafter-c"), {
        recursive: true,
      });
      watcher = startWatcher(logdir, stateHome);
      await until(
        async () => (await metric("drafter-c", "lr")).rows === 4,
        "the new folder's points after the restart",
      );
      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      expect(watcher.out.stderr).toMatch(/continuing from .*2 event file/);
      expect(watcher.out.stderr).not.toMatch(/drafter-a: \d+ point/);
      expect(watcher.out.stderr).not.toMatch(/nested\/drafter-b: \d+ point/);

      // --no-state reads everything again: still nothing stored twice.
      watcher = startWatcher(logdir, stateHome, ["--no-state"]);
      await until(
        async () => /drafter-a: 55 point/.test(watcher.out.stderr),
        "the watcher without state to read drafter-a again",
      );
      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      expect(await metric("drafter-a", "train/loss")).toEqual({
        rows: 50,
        steps: 50,
        maxStep: "49",
        kind: "training",
      });
      expect(await metric("drafter-a", "eval/tau")).toMatchObject({ rows: 5, steps: 5 });
      expect(await metric("nested/drafter-b", "seen")).toMatchObject({ rows: 4, steps: 4 });
      expect(await metric("drafter-c", "lr")).toMatchObject({ rows: 4, steps: 4 });
      const runs = await db.query(
        `SELECT count(*)::int AS n FROM "Run" WHERE config->>'source' = 'tensorboard'`,
      );
      expect(runs.rows[0]).toEqual({ n: 3 });
    },
  );
});
