import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

import { spawnPython, venvPython } from "./python-process";

// `pitwall watch tensorboard` following a log directory while the real writers fill it: PyTorch's
// torch.utils.tensorboard.SummaryWriter (simple-value scalars and new-style tensor scalars) and
// tensorboardX (versions pinned in requirements-test.txt). Points show while the job still runs; the
// watcher is killed with SIGKILL mid-run and restarted, and every step is stored exactly once.

const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");

let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const url = await createTestDatabase();
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "tb-live-host")).token;
  server = await startTestServer({ databaseUrl: url });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-tb-"));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function startWatcher(logdir: string) {
  const child = spawn(
    process.execPath,
    [bin, "watch", "tensorboard", logdir, "--poll-interval", "200"],
    {
      cwd: projectDir,
      env: {
        ...process.env,
        PITWALL_URL: server.url,
        PITWALL_TOKEN: token,
        XDG_STATE_HOME: path.join(dir, "state"),
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, exited, stderr: () => stderr };
}

async function until(
  pred: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
  detail?: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${detail ? `: ${await detail()}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stored points of `key` in the run of folder `name`: rows, distinct steps, and the value at step 7. */
async function metric(
  name: string,
  key: string,
): Promise<{ rows: number; steps: number; at7: number | null }> {
  const res = await db.query<{ rows: string; steps: string; at7: number | null }>(
    `SELECT count(*) AS rows, count(DISTINCT m.step) AS steps, max(m.value) FILTER (WHERE m.step = 7) AS at7
       FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.name = $1 AND m.key = $2`,
    [name, key],
  );
  const r = res.rows[0]!;
  return {
    rows: Number(r.rows),
    steps: Number(r.steps),
    at7: r.at7 === null ? null : Number(r.at7),
  };
}

const WRITER = `
import json, os, sys
from torch.utils.tensorboard import SummaryWriter
from tensorboardX import SummaryWriter as XWriter
logdir = sys.argv[1]
torch_w = SummaryWriter(os.path.join(logdir, "torch-run"))
x_w = XWriter(os.path.join(logdir, "tbx-run"))
def write(steps):
    for step in steps:
        torch_w.add_scalar("train/loss", 10.0 / (step + 1), step)
        torch_w.add_scalar("train/lr", 1e-4 * step, step, new_style=True)
        x_w.add_scalar("eval/tau", 3.0 + step / 100, step)
        torch_w.flush()
        x_w.flush()
write(range(0, 30))
print(json.dumps({"half": True}), flush=True)
sys.stdin.readline()
write(range(30, 60))
torch_w.close()
x_w.close()
print(json.dumps({"done": True}), flush=True)
`;

describe("pitwall watch tensorboard with the real writers", () => {
  test(
    "torch SummaryWriter and tensorboardX, live, through a kill -9 of the watcher: every step once",
    { timeout: 240_000 },
    async () => {
      const logdir = path.join(dir, "logs");
      await fs.mkdir(logdir);
      const script = path.join(dir, "writer.py");
      await fs.writeFile(script, WRITER);
      const job = spawnPython(venvPython(), [script, logdir], {});
      expect(await job.next(180_000)).toEqual({ half: true });

      let watcher = startWatcher(logdir);
      // Live: the first half is there while the job is still waiting to write the rest (tensorboardX
      // 2.6.5 keeps the last event in its writer thread's queue until the next one or close(), flush() or not).
      await until(
        async () =>
          (await metric("torch-run", "train/loss")).rows === 30 &&
          (await metric("tbx-run", "eval/tau")).rows >= 29,
        "the first 30 steps of both runs",
        60_000,
        async () =>
          `torch ${JSON.stringify(await metric("torch-run", "train/loss"))}, tbx ${JSON.stringify(await metric("tbx-run", "eval/tau"))}; watcher: ${watcher.stderr()}`,
      );
      expect(await metric("torch-run", "train/lr")).toMatchObject({ rows: 30, steps: 30 }); // new-style tensor scalars
      expect(job.child.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 500)); // let the read positions of acknowledged frames be saved
      watcher.child.kill("SIGKILL");
      await watcher.exited;

      job.send("go");
      expect(await job.next(120_000)).toEqual({ done: true });
      expect((await job.exited).code).toBe(0);
      watcher = startWatcher(logdir);
      await until(
        async () =>
          (await metric("torch-run", "train/loss")).rows >= 60 &&
          (await metric("tbx-run", "eval/tau")).rows >= 60,
        "all 60 steps after the restart",
      );
      await new Promise((r) => setTimeout(r, 1000)); // anything sent twice would land by now
      watcher.child.kill("SIGTERM");
      await watcher.exited;

      expect(watcher.stderr()).toMatch(/continuing from/);
      expect(await metric("torch-run", "train/loss")).toEqual({ rows: 60, steps: 60, at7: 1.25 });
      expect(await metric("torch-run", "train/lr")).toMatchObject({ rows: 60, steps: 60 });
      expect((await metric("torch-run", "train/lr")).at7).toBeCloseTo(7e-4, 9);
      expect(await metric("tbx-run", "eval/tau")).toMatchObject({ rows: 60, steps: 60 });
      expect((await metric("tbx-run", "eval/tau")).at7).toBeCloseTo(3.07, 5);
      const runs = await db.query(
        `SELECT name, kind FROM "Run" WHERE config->>'source' = 'tensorboard' ORDER BY name`,
      );
      expect(runs.rows).toEqual([
        { name: "tbx-run", kind: "training" },
        { name: "torch-run", kind: "training" },
      ]);
    },
  );
});
