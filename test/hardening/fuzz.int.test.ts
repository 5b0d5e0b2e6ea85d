import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { seededRng as prng } from "@/lib/random";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";
import { openWorkerSocket } from "@/test/support/worker-socket";

// A seeded fuzz pass over /ws/ingest and POST /api/ingest: thousands of mutated valid frames
// (wrong types, huge numbers, deep nesting, lone surrogates, NaN where integers go, missing and
// extra fields, times in the wrong unit). Asserted: no 5xx, every frame with a readable id is
// answered (ack or error), the socket stays open, the server stays up.

const SEED = 0x9a9a;
const WS_FRAMES = 2000;
const HTTP_FRAMES = 1000;

let server: TestServer;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "fuzz-host")).token;
  server = await startTestServer({ databaseUrl: url });
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
});

const T = 1_788_000_000_000;
const RUNS = ["fz-a", "fz-b", "fz-c"];

function templates(rand: () => number): Array<Record<string, unknown>> {
  const run = RUNS[Math.floor(rand() * RUNS.length)]!;
  return [
    {
      type: "heartbeat",
      ts: T,
      intervalS: 10,
      facts: { cpuPct: 12, gpus: [{ index: 0, utilPct: 50, memUsedMiB: 1000 }] },
    },
    {
      type: "run.start",
      run,
      name: "fuzz",
      kind: "benchmark",
      config: { tp: 2, model: "m" },
      tags: ["a"],
      startedAt: T,
    },
    {
      type: "run.benchmark",
      run,
      points: [
        {
          key: `k${Math.floor(rand() * 5)}`,
          concurrency: 4,
          outputTokPerS: 100.5,
          ttftMsMedian: "NaN",
          raw: { x: 1 },
        },
      ],
    },
    {
      type: "run.metrics",
      run,
      points: [{ key: "loss", step: Math.floor(rand() * 1000), value: 0.5, ts: T }],
    },
    {
      type: "run.progress",
      run,
      bootId: "b1",
      done: 10,
      total: 100,
      counters: { "s3.uploaded": 3 },
    },
    { type: "run.event", run, level: "warn", message: "hello" },
    {
      type: "run.artifact",
      run,
      kind: "checkpoint",
      uri: `s3://b/${Math.floor(rand() * 9)}`,
      sizeBytes: 1e9,
      step: "9007199254740993",
    },
    {
      type: "run.eval",
      run,
      results: [
        { key: "e1", checkpoint: { step: 1 }, promptId: "p", verifySteps: 10, acceptedTokens: 20 },
      ],
    },
    {
      type: "session.todos",
      session: "s1",
      source: "pushed",
      seq: 1,
      ts: T,
      items: [{ content: "x", status: "pending" }],
    },
    { type: "baseline.upsert", name: "b", metric: "tau", value: 3 },
    { type: "run.end", run, status: "succeeded", exitCode: 0, endedAt: T },
  ];
}

const WEIRD: unknown[] = [
  null,
  true,
  "",
  "\ud800",
  "\udfff\u0000x",
  "NaN",
  "Infinity",
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 63,
  Number.MAX_SAFE_INTEGER + 2,
  1736935200500000,
  1736935200,
  [],
  {},
  [[[[[]]]]],
  { __proto__: { x: 1 } },
  "x".repeat(5000),
  "\u202e\ufeff",
  4294967296,
];

/** A fresh copy of one of the WEIRD values (never shared, so mutations cannot build cycles). */
function weird(rand: () => number): unknown {
  return structuredClone(WEIRD[Math.floor(rand() * WEIRD.length)]);
}

function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Mutates a copy of `frame`: 1-3 of its fields (or nested fields) get odd values, get deleted, or extra fields appear. */
function mutate(frame: Record<string, unknown>, rand: () => number): Record<string, unknown> {
  const out = structuredClone(frame);
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const r = rand();
    let target: Record<string, unknown> = out;
    const keys = Object.keys(target).filter((k) => k !== "id" && k !== "v");
    const key = keys[Math.floor(rand() * keys.length)] ?? "type";
    const inner = target[key];
    if (
      Array.isArray(inner) &&
      inner[0] &&
      typeof inner[0] === "object" &&
      !Array.isArray(inner[0]) &&
      rand() < 0.5
    )
      target = inner[0] as Record<string, unknown>;
    const k2 =
      target === out
        ? key
        : (Object.keys(target)[Math.floor(rand() * Object.keys(target).length)] ?? "key");
    if (r < 0.55) target[k2] = weird(rand);
    else if (r < 0.7) delete target[k2];
    else if (r < 0.8) target[`extra${i}`] = 1;
    else if (r < 0.9) target[k2] = deep(rand() < 0.5 ? 70 : 3000);
    else target[k2] = Array.from({ length: 50 }, () => weird(rand));
  }
  return out;
}

function frames(count: number, prefix: string, rand: () => number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = RUNS.map((run, i) => ({
    v: 1,
    id: `${prefix}-start-${i}`,
    type: "run.start",
    run,
    name: run,
    kind: "benchmark",
  }));
  for (let i = 0; out.length < count; i++) {
    const list = templates(rand);
    const base = { v: 1, id: `${prefix}-${i}`, ...list[Math.floor(rand() * list.length)]! };
    out.push(
      rand() < 0.2 ? base : { ...mutate(base, rand), v: rand() < 0.03 ? 2 : 1, id: base.id },
    );
  }
  return out;
}

test(
  `seeded fuzz (seed ${SEED}): ${WS_FRAMES} frames over ws and ${HTTP_FRAMES} over HTTP; every frame answered, no 5xx, server alive`,
  { timeout: 120_000 },
  async () => {
    const rand = prng(SEED);

    // ws: messages of 1-30 frames, plus raw garbage messages (answered invalid_json, id null).
    const w = await openWorkerSocket(server.url, token);
    const wsFrames = frames(WS_FRAMES, "ws", rand);
    for (let i = 0; i < wsFrames.length;) {
      const take = 1 + Math.floor(rand() * 30);
      const chunk = wsFrames.slice(i, i + take);
      i += take;
      w.send(chunk.length === 1 && rand() < 0.5 ? chunk[0] : chunk);
      if (rand() < 0.05) w.ws.send(Buffer.from([0x5b, 0xff, 0xfe, 0x7b, 0x22])); // invalid UTF-8, not JSON
      if (rand() < 0.05) w.send('[NaN, Infinity, -Infinity, {"v":1}]');
    }
    const ids = wsFrames.map((f) => f.id as string);
    await w.waitAnswered(ids, 60_000);
    expect(w.ws.readyState).toBe(w.ws.OPEN);
    const codes = new Set([...w.errors().values()].map((e) => e.code));
    expect(codes.has("internal")).toBe(false);
    expect(w.acked().size).toBeGreaterThan(100); // the unmutated frames went through
    w.close();

    // HTTP: batches of 1-60 frames.
    const httpFrames = frames(HTTP_FRAMES, "http", rand);
    let answered = 0;
    for (let i = 0; i < httpFrames.length;) {
      const take = 1 + Math.floor(rand() * 60);
      const batch = httpFrames.slice(i, i + take);
      i += take;
      const res = await fetch(`${server.url}/api/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(batch),
      });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as {
        results: Array<{ id: string; ok: boolean; code?: string }>;
      };
      expect(body.results.map((r) => r.id)).toEqual(batch.map((f) => f.id));
      answered += body.results.length;
    }
    expect(answered).toBe(HTTP_FRAMES);
    const garbage = await fetch(`${server.url}/api/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: Buffer.from([0x5b, 0xff, 0xfe]),
    });
    expect(garbage.status).toBe(400);

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.logs.join("\n")).not.toMatch(/uncaught|unhandled/i);
  },
);
