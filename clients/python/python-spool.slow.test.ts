import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

import { freePort, spawnPython, startPython } from "./python-process";

// The Python client's offline-first spool and failover, driven by real python3 processes against
// the real server and PostgreSQL: a job killed with SIGKILL and restarted under the same run key,
// a server outage, `python -m pitwall sync` of a spool folder, and two server instances on one
// database with one killed -9 mid-run. Exactly once is checked on run.event rows (they have no
// natural key: a frame applied twice would show up twice) and on metric point counts.

let databaseUrl: string;
let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "gpu-spool-py")).token;
  server = await startTestServer({ databaseUrl });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-spool-"));
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function runId(key: string): Promise<string> {
  const rows = (await db.query(`SELECT id, status FROM "Run" WHERE key = $1`, [key]))
    .rows as Array<{ id: string }>;
  expect(rows, `run ${key}`).toHaveLength(1);
  return rows[0]!.id;
}

/** Asserts events "step 0" … "step n-1" each exactly once and `keys` metric points per step. */
async function expectExactlyOnce(key: string, steps: number, keys: number): Promise<void> {
  const id = await runId(key);
  const events = (
    await db.query(
      `SELECT message, count(*)::int AS n FROM "RunEvent" WHERE "runId" = $1 AND code IS NULL AND message LIKE 'step %' GROUP BY message`,
      [id],
    )
  ).rows as Array<{ message: string; n: number }>;
  expect(events.filter((e) => e.n !== 1)).toEqual([]);
  expect(events.length).toBe(steps);
  const points = (
    await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT step)::int AS s FROM "MetricPoint" WHERE "runId" = $1`,
      [id],
    )
  ).rows[0];
  expect(points).toEqual({ n: steps * keys, s: steps });
}

// One step: 30 metric keys and one event. `first`..`last` (exclusive).
const LOOP = `
import json, os, sys, pitwall
KEYS = ["m/k{:02d}".format(i) for i in range(30)]
def steps(first, last):
    for s in range(first, last):
        pitwall.log({k: s + i / 100 for i, k in enumerate(KEYS)}, step=s)
        pitwall.event("step {}".format(s))
`;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PITWALL_URL: server.url,
    PITWALL_TOKEN: token,
    PITWALL_SPOOL_DIR: path.join(dir, "spool"),
    ...extra,
  };
}

describe("python client spool", () => {
  test(
    "a job killed with SIGKILL mid-run and restarted with the same run key: every point arrives exactly once",
    { timeout: 240_000 },
    async () => {
      const key = `py-sigkill-${randomUUID()}`;
      // The first process logs 4000 steps as fast as it can, says how much is still unsent, then
      // waits for the kill; the server is slower than the loop, so a backlog exists at the kill.
      const first = await startPython(
        dir,
        `${LOOP}
pitwall.init(kind="training", name="killed", key=os.environ["RUN_KEY"], max_batch_frames=50)
steps(0, 4000)
pw = pitwall.current_run()._pw
print(json.dumps({"stats": pw.stats(), "folder": pw.spool_folder}), flush=True)
sys.stdin.readline()
`,
        env({ RUN_KEY: key }),
      );
      const before = (await first.next()) as {
        stats: { queued: number; sent: number };
        folder: string;
      };
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");
      expect(before.stats.queued, "frames still unsent when the job was killed").toBeGreaterThan(0);
      const left = (await fs.readdir(before.folder)).filter((f) => f.endsWith(".jsonl"));
      expect(left.length).toBeGreaterThan(0);

      const second = await startPython(
        dir,
        `${LOOP}
pitwall.init(kind="training", name="killed", key=os.environ["RUN_KEY"])
steps(4000, 4100)
ok = pitwall.finish(flush_timeout_s=120)
print(json.dumps({"ok": ok}), flush=True)
`,
        env({ RUN_KEY: key }),
      );
      expect(await second.next()).toEqual({ ok: true });
      const { code, stderr } = await second.exited;
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/resending \d+ frame\(s\) left in .* by an earlier process/);
      await expectExactlyOnce(key, 4100, 30);
      // Everything acked: the spool folder is gone.
      await expect(fs.stat(before.folder)).rejects.toThrow(/ENOENT/);
    },
  );

  test(
    "a server outage: metrics logged while it is down arrive once it is back, exactly once",
    { timeout: 240_000 },
    async () => {
      const port = await freePort();
      const key = `py-outage-${randomUUID()}`;
      let outage: TestServer | null = await startTestServer({ databaseUrl, port });
      const py = await startPython(
        dir,
        `${LOOP}
pitwall.init(kind="training", name="outage", key=os.environ["RUN_KEY"], max_backoff_s=1)
steps(0, 200)
print(json.dumps({"delivered": pitwall.current_run().flush(60)}), flush=True)
sys.stdin.readline()  # the server is down now
steps(200, 2200)
print(json.dumps({"stats": pitwall.current_run()._pw.stats()}), flush=True)
sys.stdin.readline()  # the server is back
print(json.dumps({"ok": pitwall.finish(flush_timeout_s=120)}), flush=True)
`,
        env({ RUN_KEY: key, PITWALL_URL: `http://127.0.0.1:${port}` }),
      );
      try {
        expect(await py.next()).toEqual({ delivered: true });
        await outage.stop();
        outage = null;
        py.send("down");
        const down = (await py.next()) as { stats: { queued: number; dropped: number } };
        expect(down.stats.dropped).toBe(0);
        expect(down.stats.queued).toBeGreaterThanOrEqual(4000);
        outage = await startTestServer({ databaseUrl, port });
        py.send("up");
        expect(await py.next()).toEqual({ ok: true });
        expect((await py.exited).code).toBe(0);
      } finally {
        await outage?.stop();
      }
      await expectExactlyOnce(key, 2200, 30);
    },
  );

  test(
    "python -m pitwall sync uploads a spool folder written with no server reachable",
    { timeout: 180_000 },
    async () => {
      const key = `py-sync-${randomUUID()}`;
      const root = path.join(dir, "airgapped");
      const dead = `http://127.0.0.1:${await freePort()}`;
      const offline = await startPython(
        dir,
        `${LOOP}
pitwall.init(kind="eval", name="air-gapped", key=os.environ["RUN_KEY"], flush_timeout_s=0.5)
steps(0, 300)
pitwall.finish(flush_timeout_s=0.5)
`,
        env({ RUN_KEY: key, PITWALL_URL: dead, PITWALL_SPOOL_DIR: root }),
      );
      const offlineExit = await offline.exited;
      expect(offlineExit.code, offlineExit.stderr).toBe(0);
      expect(offlineExit.stderr).toContain("python -m pitwall sync");

      const sync = spawnPython("python3", ["-m", "pitwall", "sync", root], {
        PITWALL_URL: server.url,
        PITWALL_TOKEN: token,
      });
      const { code, stderr } = await sync.exited;
      expect(code, stderr).toBe(0);
      const id = await runId(key);
      expect((await db.query(`SELECT status FROM "Run" WHERE id = $1`, [id])).rows[0]).toEqual({
        status: "succeeded",
      });
      await expectExactlyOnce(key, 300, 30);
      expect(await fs.readdir(root)).toEqual([]);
      // Syncing again finds nothing.
      const again = spawnPython("python3", ["-m", "pitwall", "sync", root], {
        PITWALL_URL: server.url,
        PITWALL_TOKEN: token,
      });
      expect((await again.exited).code).toBe(2);
    },
  );

  test(
    "npx pitwall sync (Node CLI) uploads a Python spool folder too, skipping a line cut short by a kill",
    { timeout: 180_000 },
    async () => {
      const key = `py-node-sync-${randomUUID()}`;
      const root = path.join(dir, "airgapped-node");
      const offline = await startPython(
        dir,
        `${LOOP}
pitwall.init(kind="eval", name="air-gapped, Node sync", key=os.environ["RUN_KEY"], flush_timeout_s=0.5)
steps(0, 200)
pitwall.finish(flush_timeout_s=0.5)
`,
        env({
          RUN_KEY: key,
          PITWALL_URL: `http://127.0.0.1:${await freePort()}`,
          PITWALL_SPOOL_DIR: root,
        }),
      );
      expect((await offline.exited).code).toBe(0);
      const [folder] = await fs.readdir(root);
      const segments = (await fs.readdir(path.join(root, folder!)))
        .filter((f) => f.endsWith(".jsonl"))
        .sort();
      await fs.appendFile(
        path.join(root, folder!, segments.at(-1)!),
        '{"v":1,"id":"cut-short","type":"run.met',
      );
      const projectDir = path.resolve(import.meta.dirname, "../..");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.join(projectDir, "bin", "pitwall.mjs"), "sync", root],
        {
          env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token },
        },
      );
      expect(stdout).toMatch(
        /synced 1 folder\(s\): \d+ frame\(s\), \d+ delivered, 0 rejected, 1 cut-short line\(s\) skipped/,
      );
      expect((await db.query(`SELECT status FROM "Run" WHERE key = $1`, [key])).rows[0]).toEqual({
        status: "succeeded",
      });
      await expectExactlyOnce(key, 200, 30);
      expect(await fs.readdir(root)).toEqual([]);
    },
  );

  test(
    "PITWALL_URL with two instances on one database: kill -9 of the one in use fails over, exactly once",
    { timeout: 240_000 },
    async () => {
      const key = `py-failover-${randomUUID()}`;
      let a: TestServer | null = await startTestServer({ databaseUrl });
      try {
        const py = await startPython(
          dir,
          `${LOOP}
import time
pitwall.init(kind="training", name="failover", key=os.environ["RUN_KEY"], max_backoff_s=1, max_batch_frames=20)
steps(0, 100)
print(json.dumps({"delivered": pitwall.current_run().flush(60)}), flush=True)
for s in range(100, 1100, 10):
    steps(s, s + 10)
    time.sleep(0.01)
print(json.dumps({"ok": pitwall.finish(flush_timeout_s=120), "url": pitwall.current_run() is None}), flush=True)
`,
          env({ RUN_KEY: key, PITWALL_URL: `${a.url},${server.url}` }),
        );
        expect(await py.next()).toEqual({ delivered: true });
        await a.kill();
        a = null;
        expect(await py.next()).toMatchObject({ ok: true });
        const { code, stderr } = await py.exited;
        expect(code, stderr).toBe(0);
        expect(stderr).toContain(`failing over to ${server.url}`);
      } finally {
        await a?.stop();
      }
      await expectExactlyOnce(key, 1100, 30);
    },
  );
});
