import { randomUUID } from "node:crypto";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

import { PitwallAuthError, PitwallSocket, type FrameRejection } from "./socket";

// The SDK against the real server, a real PostgreSQL and real sockets: acks, rejections, a
// server crash and restart mid-stream, and the spool carrying frames across client restarts.

let server: TestServer;
let databaseUrl: string;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "sdk-host")).token;
  server = await startTestServer({ databaseUrl });
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
});

/** Polls `pred` every 20 ms until true; throws after `timeoutMs`. */
async function until(pred: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Crashes the server: SIGKILL, no graceful shutdown. `TestServer.kill()` signals the `tsx` CLI
 * wrapper, whose child node process (the actual server) survives a SIGKILL of its parent and
 * keeps the port; so the server process itself, found by this file's unique DATABASE_URL in its
 * environment, is killed too (a no-op once test/support/server.ts signals the real process).
 */
async function crash(s: TestServer): Promise<void> {
  await s.kill();
  const marker = `DATABASE_URL=${databaseUrl}\0`;
  const victims: number[] = [];
  for (const entry of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [environ, cmdline] = await Promise.all([
        fs.readFile(`/proc/${entry}/environ`, "utf8"),
        fs.readFile(`/proc/${entry}/cmdline`, "utf8"),
      ]);
      if (environ.includes(marker) && cmdline.includes("scripts/start.ts"))
        victims.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  for (const pid of victims) process.kill(pid, "SIGKILL");
  await until(() => victims.every((pid) => !isRunning(pid)), "the killed server to exit");
}

function isRunning(pid: number): boolean {
  try {
    const stat = fsSync.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const runStart = (run: string) => ({
  type: "run.start" as const,
  run,
  name: `sdk ${run}`,
  kind: "training" as const,
});
const metric = (run: string, step: number) => ({
  type: "run.metrics" as const,
  run,
  points: [{ key: "loss", step, value: step / 2 }],
});

async function metricSteps(
  runKey: string,
): Promise<{ count: number; distinct: number; min: number; max: number }> {
  const res = await db.query<{ count: string; distinct: string; min: string; max: string }>(
    `SELECT count(*) AS count, count(DISTINCT m.step) AS distinct, min(m.step) AS min, max(m.step) AS max
     FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.key = $1 AND m.key = 'loss'`,
    [runKey],
  );
  const row = res.rows[0]!;
  return {
    count: Number(row.count),
    distinct: Number(row.distinct),
    min: Number(row.min),
    max: Number(row.max),
  };
}

async function countRows(table: "ProgressSample" | "RunEvent", runKey: string): Promise<number> {
  const res = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${table}" t JOIN "Run" r ON r.id = t."runId" WHERE r.key = $1`,
    [runKey],
  );
  return Number(res.rows[0]!.n);
}

describe("PitwallSocket against the real server", () => {
  test("frames are acked; rejected frames are reported with their code and never resent", async () => {
    const runKey = `acks-${randomUUID()}`;
    const socket = new PitwallSocket({ url: server.url, token });
    const rejections: FrameRejection[] = [];
    socket.on("rejected", (r) => rejections.push(r));
    socket.send(runStart(runKey));
    for (let i = 0; i < 20; i++) socket.send(metric(runKey, i));
    const unknown = socket.send({
      type: "run.end",
      run: `never-started-${randomUUID()}`,
      status: "succeeded",
    });
    const invalid = socket.sendValue({
      type: "run.metrics",
      run: runKey,
      points: [{ key: "loss", step: 3, value: "three" }],
    });
    socket.send({
      type: "run.metrics",
      run: runKey,
      points: [{ key: "loss", step: 20, value: NaN }],
    });
    await socket.flush(30_000);

    expect(rejections.map((r) => [r.id, r.code])).toEqual(
      expect.arrayContaining([
        [unknown, "unknown_run"],
        [invalid, "invalid_frame"],
      ]),
    );
    expect(rejections).toHaveLength(2);
    expect(socket.stats()).toMatchObject({
      queued: 24,
      acked: 22,
      rejected: 2,
      pending: 0,
      connected: true,
    });
    expect(await metricSteps(runKey)).toEqual({ count: 21, distinct: 21, min: 0, max: 20 });
    const nan = await db.query(
      `SELECT value FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.key = $1 AND step = 20`,
      [runKey],
    );
    expect(Number.isNaN(nan.rows[0].value)).toBe(true);
    await socket.close();
  });

  test("a revoked or unknown token is fatal: no retries, flush rejects", async () => {
    const socket = new PitwallSocket({
      url: server.url,
      token: "pw_not_a_real_token_000000000000",
    });
    const fatal = new Promise<Error>((resolve) => socket.once("fatal", resolve));
    socket.send({ type: "hello" });
    expect(await fatal).toBeInstanceOf(PitwallAuthError);
    await expect(socket.flush()).rejects.toBeInstanceOf(PitwallAuthError);
    await expect(socket.waitOpen()).rejects.toBeInstanceOf(PitwallAuthError);
    await socket.close();
  });

  test(
    "a server crash (SIGKILL) and restart mid-stream: every frame is stored exactly once",
    { timeout: 180_000 },
    async () => {
      const runKey = `restart-${randomUUID()}`;
      const socket = new PitwallSocket({
        url: server.url,
        token,
        backoff: { initialMs: 100, maxMs: 500 },
      });
      const rejections: FrameRejection[] = [];
      socket.on("rejected", (r) => rejections.push(r));
      let frame = 0;
      let progressFrames = 0;
      let events = 0;
      // Each metric step is one frame; every 10th frame also a progress push (cumulative counters of
      // one boot) and every 100th an event: ProgressSample and RunEvent rows have no natural key,
      // so a frame applied twice would show up as an extra row.
      const produce = async (count: number, pace: boolean) => {
        for (let n = 0; n < count; n++, frame++) {
          socket.send(metric(runKey, frame));
          if (frame % 10 === 9) {
            socket.send({
              type: "run.progress",
              run: runKey,
              bootId: "boot-1",
              done: frame + 1,
              total: 4000,
              counters: { "s3.uploaded": frame + 1, "s3.bytes": (frame + 1) * 1024 },
            });
            progressFrames++;
          }
          if (frame % 100 === 99) {
            socket.send({ type: "run.event", run: runKey, message: `reached ${frame + 1}` });
            events++;
          }
          if (pace && n % 50 === 49) await new Promise((r) => setTimeout(r, 5));
        }
      };

      socket.send(runStart(runKey));
      await produce(2000, false);
      await until(() => socket.stats().acked >= 200, "the first acks");
      const atKill = socket.stats();
      const port = server.port;
      await crash(server);
      // Mid-stream: frames were queued that the dead server never acknowledged.
      expect(atKill.acked).toBeLessThan(atKill.queued);
      await produce(1000, false); // while the server is down
      const restarted = startTestServer({ databaseUrl, port });
      server = await restarted;
      await produce(1000, true); // while the client reconnects and resends
      await socket.flush(120_000);

      const stats = socket.stats();
      expect(rejections).toEqual([]);
      expect(stats.reconnects).toBeGreaterThanOrEqual(1);
      expect(stats.pending).toBe(0);
      expect(stats.acked).toBe(1 + 4000 + progressFrames + events);
      expect(await metricSteps(runKey)).toEqual({ count: 4000, distinct: 4000, min: 0, max: 3999 });
      expect(await countRows("ProgressSample", runKey)).toBe(400);
      expect(await countRows("RunEvent", runKey)).toBe(40);
      const worker = await db.query(
        `SELECT w.done, w.total, w.counters FROM "WorkerProgress" w JOIN "Run" r ON r.id = w."runId" WHERE r.key = $1`,
        [runKey],
      );
      expect(worker.rows).toEqual([
        { done: 4000, total: 4000, counters: { "s3.uploaded": 4000, "s3.bytes": 4000 * 1024 } },
      ]);
      await socket.close();
    },
  );

  test("the spool carries unacknowledged frames to the next client on the same folder", async () => {
    const runKey = `spool-${randomUUID()}`;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-spool-"));
    const framesFile = path.join(dir, "frames.jsonl");
    const lines = async () => (await fs.readFile(framesFile, "utf8")).split("\n").filter(Boolean);

    // 1. Connected: everything is acked, and the spool is empty afterwards.
    const a1 = new PitwallSocket({ url: server.url, token, spoolDir: dir });
    a1.send(runStart(runKey));
    for (let i = 0; i < 50; i++) a1.send(metric(runKey, i));
    await a1.flush(30_000);
    await a1.close();
    expect(await lines()).toEqual([]);

    // 2. Server unreachable: frames stay in the spool when this client goes away.
    const a2 = new PitwallSocket({
      url: await deadUrl(),
      token,
      spoolDir: dir,
      backoff: { initialMs: 50, maxMs: 100 },
    });
    for (let i = 50; i < 100; i++) a2.send(metric(runKey, i));
    for (let i = 0; i < 5; i++)
      a2.send({ type: "run.event", run: runKey, message: `offline ${i}` });
    await a2.close();
    expect(await lines()).toHaveLength(55);
    // A process killed mid-append leaves a cut line: it is skipped.
    await fs.appendFile(framesFile, '{"v":1,"id":"cut-sh');

    // 3. A new client on the same folder replays them first, in order, with the same ids.
    const b = new PitwallSocket({ url: server.url, token, spoolDir: dir });
    expect(b.replayedFrames).toBe(55);
    b.send(metric(runKey, 100));
    await b.flush(30_000);
    expect(b.stats()).toMatchObject({ acked: 56, pending: 0 });
    await b.close();
    expect(await lines()).toEqual([]);
    expect(await metricSteps(runKey)).toEqual({ count: 101, distinct: 101, min: 0, max: 100 });
    expect(await countRows("RunEvent", runKey)).toBe(5);

    // 4. Frames that were committed but whose ack never reached the spool are resent and deduped.
    const c = new PitwallSocket({ url: server.url, token, spoolDir: dir });
    const ids = [c.send({ type: "run.event", run: runKey, message: "once" })];
    await c.flush(30_000);
    await c.close();
    await fs.appendFile(
      framesFile,
      `${JSON.stringify({ v: 1, id: ids[0], type: "run.event", run: runKey, level: "info", message: "once" })}\n`,
    );
    const d = new PitwallSocket({ url: server.url, token, spoolDir: dir });
    expect(d.replayedFrames).toBe(1);
    await d.flush(30_000);
    await d.close();
    expect(await countRows("RunEvent", runKey)).toBe(6);
  });
});
