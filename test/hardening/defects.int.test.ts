import { execFile } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";
import { openWorkerSocket } from "@/test/support/worker-socket";

// Issue 9: one test per defect, against the real server, a real PostgreSQL and real sockets.
// Each failed on main as of 6922c38.

let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let url: string;

beforeAll(async () => {
  url = await createTestDatabase();
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "hardening-host")).token;
  server = await startTestServer({ databaseUrl: url });
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
});

const MICROSECONDS = 1736935200500000; // 2025-01-15T10:00:00.5Z in µs: year 57011 read as ms
const nested = (levels: number) =>
  JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`) as unknown;
const postIngest = (body: string) =>
  fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });

describe("times are bounded before they are stored", () => {
  test("a heartbeat and a run.start in microseconds are rejected with time_out_of_range; nothing is stored", async () => {
    const w = await openWorkerSocket(server.url, token);
    w.send({ v: 1, id: "hb-us", type: "heartbeat", ts: MICROSECONDS });
    w.send({
      v: 1,
      id: "rs-us",
      type: "run.start",
      run: "run-us",
      name: "µs",
      kind: "training",
      startedAt: MICROSECONDS,
    });
    await w.waitAnswered(["hb-us", "rs-us"]);
    for (const id of ["hb-us", "rs-us"]) {
      expect(w.errors().get(id)).toMatchObject({
        code: "time_out_of_range",
        message: expect.stringMatching(/microseconds/),
      });
    }
    expect(w.acked().size).toBe(0);
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM "Run" WHERE key = 'run-us'`)).rows[0].n,
    ).toBe(0);
    w.close();
  });

  test("pages and APIs still answer 200 with a bad time stored directly in the database", async () => {
    const w = await openWorkerSocket(server.url, token);
    w.send({
      v: 1,
      id: "rs-ok",
      type: "run.start",
      run: "run-bad-row",
      name: "bad row",
      kind: "training",
    });
    w.send({ v: 1, id: "hb-ok", type: "heartbeat" });
    await w.waitAnswered(["rs-ok", "hb-ok"]);
    w.close();
    // What main stored for such frames: year 57011.
    await db.query(
      `UPDATE "Run" SET "startedAt" = to_timestamp($1 / 1000.0), "lastPushAt" = to_timestamp($1 / 1000.0) WHERE key = 'run-bad-row'`,
      [MICROSECONDS],
    );
    await db.query(
      `UPDATE "Host" SET "lastHeartbeatAt" = to_timestamp($1 / 1000.0) WHERE name = 'hardening-host'`,
      [MICROSECONDS],
    );
    const { cookie } = await newSignedInUser(prisma, server.url, "viewer");
    for (const path of ["/", "/runs", "/hosts", "/api/overview", "/api/runs", "/api/hosts"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
      expect(res.status, path).toBe(200);
      await res.text();
    }
    const runs = (await (
      await fetch(`${server.url}/api/runs`, { headers: { cookie } })
    ).json()) as { runs: Array<{ name: string; startedAt: string }> };
    expect(runs.runs.find((r) => r.name === "bad row")?.startedAt).toBe("invalid");

    // `pitwall admin repair` fixes such rows and reports what it did.
    const cli = path.resolve(import.meta.dirname, "../../bin/pitwall.mjs");
    const { stdout } = await promisify(execFile)(process.execPath, [cli, "admin", "repair"], {
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(stdout).toContain("Run.startedAt: 1 row(s) set to the repair time");
    expect(stdout).toContain("Run.lastPushAt: 1 row(s) set to the repair time");
    expect(stdout).toContain("Host.lastHeartbeatAt: 1 row(s) cleared");
    expect(stdout).toMatch(/repaired \d+ stored time\(s\)/);
    const after = (await (
      await fetch(`${server.url}/api/runs`, { headers: { cookie } })
    ).json()) as { runs: Array<{ name: string; startedAt: string }> };
    expect(Date.parse(after.runs.find((r) => r.name === "bad row")!.startedAt)).toBeGreaterThan(
      Date.UTC(2026, 0, 1),
    );
  });
});

describe("poison frames are rejected, never retried", () => {
  test("a run.start nested 4,000 levels over ws is rejected with too_deep and the frames after it are acked", async () => {
    const w = await openWorkerSocket(server.url, token);
    w.send({
      v: 1,
      id: "deep-ws",
      type: "run.start",
      run: "deep-ws",
      name: "deep",
      kind: "training",
      config: { model: "x", nested: nested(4000) },
    });
    const later = Array.from({ length: 20 }, (_, i) => ({
      v: 1,
      id: `after-deep-${i}`,
      type: "heartbeat",
    }));
    w.send(later);
    await w.waitAnswered(["deep-ws", ...later.map((f) => f.id)]);
    expect(w.errors().get("deep-ws")).toMatchObject({
      code: "too_deep",
      message: expect.stringMatching(/^config\.nested(\.a)+: nested deeper than 64/),
    });
    for (const f of later) expect(w.acked().has(f.id)).toBe(true);
    expect(w.ws.readyState).toBe(w.ws.OPEN);
    w.close();
  });

  test("the same frame over HTTP: the valid frames beside it are applied and acked", async () => {
    const deep = {
      v: 1,
      id: "deep-http",
      type: "run.start",
      run: "deep-http",
      name: "deep",
      kind: "training",
      config: nested(4000),
    };
    const res = await postIngest(
      JSON.stringify([
        { v: 1, id: "http-a", type: "run.start", run: "http-ok", name: "ok", kind: "training" },
        deep,
        { v: 1, id: "http-b", type: "run.event", run: "http-ok", message: "after" },
      ]),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      results: Array<{ id: string; ok: boolean; code?: string }>;
      accepted: number;
    };
    expect(body.results.map((r) => [r.id, r.ok, r.code])).toEqual([
      ["http-a", true, undefined],
      ["deep-http", false, "too_deep"],
      ["http-b", true, undefined],
    ]);
    expect(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM "RunEvent" e JOIN "Run" r ON r.id = e."runId" WHERE r.key = 'http-ok'`,
        )
      ).rows[0].n,
    ).toBe(1);
  });

  test(
    "a chunked body that never ends is cut at the 16 MiB limit: 413 batch_too_large",
    { timeout: 60_000 },
    async () => {
      const started = Date.now();
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${server.url}/api/ingest`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        });
        const chunk = Buffer.alloc(256 * 1024, " ");
        let stop = false;
        req.on("response", (res) => {
          stop = true;
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => (req.destroy(), resolve({ status: res.statusCode ?? 0, body })));
        });
        req.on("error", (err) => (stop ? undefined : reject(err)));
        req.write("[");
        let sent = 0;
        const pump = () => {
          // Up to 200 MiB; the server must answer long before.
          while (!stop && sent < 200 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
        };
        pump();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "batch_too_large" } });
      expect(Date.now() - started).toBeLessThan(30_000);
      // Still serving.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
  );
});

describe("/healthz", () => {
  test("anonymous: says up, with no connection details", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, database: "up" });
  });
});
