import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Integration tests of the wire protocol against the real server, a real PostgreSQL and real
// sockets: auth during the upgrade, acks after commit, per-frame errors, dedupe by id,
// latest-wins per point key, non-finite numbers, the 1 MiB limit, and HTTP batches.

let server: SharedTestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "gpu-box-1")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.end();
});

/** A connected worker socket that collects server frames. */
async function connect(authToken: string | null = token) {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/ingest`, {
    headers: authToken ? { authorization: `Bearer ${authToken}` } : {},
  });
  const received: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data) => {
    received.push(JSON.parse(data.toString()) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) =>
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { statusCode: res.statusCode })),
    );
  });
  /** Waits until a received frame matches. */
  const waitFor = async (pred: (f: Record<string, unknown>) => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = received.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(received)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  const acked = (id: string) =>
    waitFor((f) => f.type === "ack" && (f.ids as string[]).includes(id));
  return { ws, received, waitFor, acked };
}

const runStart = (run: string, id = randomUUID()) => ({
  v: 1,
  id,
  type: "run.start",
  run,
  name: `bench ${run}`,
  kind: "benchmark",
  config: { model: "Qwen3-27B", engine: "sglang" },
});
const point = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  concurrency: 8,
  outputTokPerS: 577.8,
  ttftMsMedian: 85.7,
  completed: 100,
  ...extra,
});
const bench = (run: string, points: unknown[], id = randomUUID()) => ({
  v: 1,
  id,
  type: "run.benchmark",
  run,
  points,
});

async function pointRow(runKey: string, key: string) {
  const res = await db.query(
    `SELECT p.* FROM "BenchmarkPoint" p JOIN "Run" r ON r.id = p."runId" WHERE r.key = $1 AND p.key = $2`,
    [runKey, key],
  );
  return res.rows as Array<Record<string, unknown>>;
}

describe("/ws/ingest", () => {
  test("refuses the upgrade with HTTP 401 without a token or with a bad one", async () => {
    await expect(connect(null)).rejects.toMatchObject({ statusCode: 401 });
    await expect(connect("pw_not-a-real-token")).rejects.toMatchObject({ statusCode: 401 });
  });

  test("acks committed frames and stores the point", async () => {
    const { ws, acked } = await connect();
    const run = `run-${randomUUID()}`;
    const start = runStart(run);
    const b = bench(run, [point("c8")]);
    ws.send(JSON.stringify(start));
    ws.send(JSON.stringify(b));
    await acked(start.id);
    await acked(b.id);
    const rows = await pointRow(run, "c8");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.outputTokPerS).toBe(577.8);
    expect(rows[0]!.concurrency).toBe(8);
    ws.close();
  });

  test("a bad frame gets an error naming it; the socket stays open and later frames commit", async () => {
    const { ws, waitFor, acked } = await connect();
    ws.send(
      JSON.stringify({
        v: 1,
        id: "bad-1",
        type: "run.benchmark",
        run: "x",
        points: [{ key: "k", concurrency: "eight" }],
      }),
    );
    const err = await waitFor((f) => f.type === "error" && f.id === "bad-1");
    expect(err.code).toBe("invalid_frame");
    expect(String(err.message)).toContain("points.0.concurrency");

    ws.send("{not json");
    const jsonErr = await waitFor((f) => f.type === "error" && f.code === "invalid_json");
    expect(jsonErr.id).toBeNull();

    ws.send(JSON.stringify({ v: 2, id: "v2", type: "hello" }));
    expect((await waitFor((f) => f.type === "error" && f.id === "v2")).code).toBe(
      "unsupported_version",
    );

    const unknown = bench(`never-started-${randomUUID()}`, [point("p")]);
    ws.send(JSON.stringify(unknown));
    expect((await waitFor((f) => f.type === "error" && f.id === unknown.id)).code).toBe(
      "unknown_run",
    );

    const start = runStart(`run-${randomUUID()}`);
    ws.send(JSON.stringify(start));
    await acked(start.id);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  test("a re-sent frame id changes nothing; a new frame for the same point key replaces it", async () => {
    const { ws, acked } = await connect();
    const run = `run-${randomUUID()}`;
    const start = runStart(run);
    const first = bench(run, [point("c8", { outputTokPerS: 100 })]);
    ws.send(JSON.stringify(start));
    ws.send(JSON.stringify(first));
    await acked(first.id);

    // Same id, different content: a resend after reconnect must not change anything.
    const resend = { ...first, points: [point("c8", { outputTokPerS: 999 })] };
    ws.send(JSON.stringify(resend));
    await new Promise((r) => setTimeout(r, 50));
    const { acked: acked2, ws: ws2 } = await connect();
    ws2.send(JSON.stringify(resend));
    await acked2(first.id);
    expect((await pointRow(run, "c8"))[0]!.outputTokPerS).toBe(100);

    // New id, same point key: a correction; latest wins.
    const correction = bench(run, [point("c8", { outputTokPerS: 250.5 })]);
    ws.send(JSON.stringify(correction));
    await acked(correction.id);
    const rows = await pointRow(run, "c8");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.outputTokPerS).toBe(250.5);
    ws.close();
    ws2.close();
  });

  test("bare NaN / Infinity (Python json.dumps) and the string forms are stored as non-finite", async () => {
    const { ws, acked } = await connect();
    const run = `run-${randomUUID()}`;
    const start = runStart(run);
    const id = randomUUID();
    ws.send(JSON.stringify(start));
    ws.send(
      `{"v": 1, "id": "${id}", "type": "run.benchmark", "run": "${run}", "points": [` +
        `{"key": "a", "requestRate": Infinity, "ttftMsMean": NaN, "tpotMsMean": -Infinity, "outputTokPerS": "NaN", "raw": {"request_rate": Infinity}}]}`,
    );
    await acked(id);
    const [row] = await pointRow(run, "a");
    expect(row!.requestRate).toBe(Infinity);
    expect(row!.ttftMsMean).toBeNaN();
    expect(row!.tpotMsMean).toBe(-Infinity);
    expect(row!.outputTokPerS).toBeNaN();
    expect(row!.raw).toEqual({ request_rate: "Infinity" });

    // The read API writes them tagged (docs/api.md), so no string can be mistaken for one.
    const runId = (await db.query(`SELECT id FROM "Run" WHERE key = $1`, [run])).rows[0]
      .id as number;
    const body = (await (
      await fetch(`${server.url}/api/runs/${runId}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { benchmarkPoints: Array<Record<string, unknown>> };
    expect(body.benchmarkPoints[0]!.ttftMsMean).toEqual({ $num: "NaN" });
    expect(body.benchmarkPoints[0]!.requestRate).toEqual({ $num: "Infinity" });
    ws.close();
  });

  test("a message over 1 MiB closes the socket with 1009", async () => {
    const { ws } = await connect();
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(
      JSON.stringify({ v: 1, id: "big", type: "hello", client: "x".repeat(1024 * 1024 + 10) }),
    );
    expect(await closed).toBe(1009);
  });

  test("an array message is a batch: one ack lists every committed id", async () => {
    const { ws, waitFor } = await connect();
    const run = `run-${randomUUID()}`;
    const frames = [
      runStart(run),
      bench(run, [point("c1", { concurrency: 1 })]),
      bench(run, [point("c2", { concurrency: 2 })]),
    ];
    ws.send(JSON.stringify(frames));
    const ack = await waitFor(
      (f) => f.type === "ack" && (f.ids as string[]).includes(frames[2]!.id),
    );
    expect(ack.ids).toEqual(frames.map((f) => f.id));
    expect(await pointRow(run, "c2")).toHaveLength(1);
    ws.close();
  });
});

describe("POST /api/ingest", () => {
  const post = (body: string, auth: string | null = token) =>
    fetch(`${server.url}/api/ingest`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      },
      body,
    });

  test("401 without a valid token, nothing stored", async () => {
    const run = `run-${randomUUID()}`;
    const res = await post(JSON.stringify([runStart(run)]), null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    expect((await db.query(`SELECT 1 FROM "Run" WHERE key = $1`, [run])).rowCount).toBe(0);
  });

  test("valid frames of a batch are kept when others are bad; one result per frame", async () => {
    const run = `run-${randomUUID()}`;
    const frames = [
      runStart(run),
      { v: 1, id: "no-type" },
      bench(run, [point("c4", { concurrency: 4 })]),
      bench(run, [{ key: "neg", concurrency: -1 }]),
    ];
    const res = await post(JSON.stringify(frames));
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      results: Array<{ id: string; ok: boolean; code?: string }>;
      accepted: number;
      rejected: number;
    };
    expect(body.results.map((r) => r.ok)).toEqual([true, false, true, false]);
    expect(body.results[1]).toMatchObject({ id: "no-type", code: "invalid_frame" });
    expect(body.accepted).toBe(2);
    expect(await pointRow(run, "c4")).toHaveLength(1);

    // Re-posting the same batch is idempotent.
    const again = (await (await post(JSON.stringify(frames))).json()) as {
      results: Array<{ ok: boolean; duplicate?: boolean }>;
    };
    expect(again.results[0]).toMatchObject({ ok: true, duplicate: true });
    expect(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM "BenchmarkPoint" p JOIN "Run" r ON r.id = p."runId" WHERE r.key = $1`,
          [run],
        )
      ).rows[0].n,
    ).toBe(1);
  });

  test("a body that is not JSON gets 400 invalid_json", async () => {
    const res = await post("[{");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });
});
