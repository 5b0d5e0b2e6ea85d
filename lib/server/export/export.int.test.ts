import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import Papa from "papaparse";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Export downloads through the real server: data pushed over /api/ingest comes back out of
// /api/runs/:id/export and /api/compare/export, and the CSV parsed by papaparse gives exactly the
// numbers stored in PostgreSQL (NaN and ±Infinity included, 64-bit steps as text, metric series
// longer than one read batch complete and in order).

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "export-host")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

async function push(frames: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  const body = (await res.json()) as {
    results: Array<{ ok: boolean; code?: string; message?: string }>;
  };
  const bad = body.results.filter((r) => !r.ok);
  if (bad.length) throw new Error(`rejected: ${JSON.stringify(bad)}`);
}

async function startRun(
  kind: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ run: string; id: number }> {
  const run = `${kind}-${randomUUID()}`;
  await push([{ type: "run.start", run, name, kind, ...extra }]);
  return {
    run,
    id: (await pool.query<{ id: number }>(`SELECT id FROM "Run" WHERE key = $1`, [run])).rows[0]!
      .id,
  };
}

const get = (path: string, auth = true) =>
  fetch(`${server.url}${path}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });

async function csvOf(
  path: string,
): Promise<{ res: Response; rows: Array<Record<string, string>>; fields: string[] }> {
  const res = await get(path);
  expect(res.status).toBe(200);
  const parsed = Papa.parse<Record<string, string>>(await res.text(), {
    header: true,
    skipEmptyLines: true,
  });
  expect(parsed.errors).toEqual([]);
  return { res, rows: parsed.data, fields: parsed.meta.fields ?? [] };
}

/** A CSV cell as the number it encodes ("" = not measured = null). */
const num = (cell: string | undefined): number | null =>
  cell === undefined || cell === "" ? null : Number(cell);

const POINT_COLUMNS = {
  concurrency: "concurrency",
  requestRate: "requestRateReqPerS",
  completed: "completedRequests",
  failed: "failedRequests",
  durationS: "durationS",
  outputTokPerS: "outputTokPerS",
  totalTokPerS: "totalTokPerS",
  ttftMsMedian: "ttftMsMedian",
  ttftMsP99: "ttftMsP99",
  tpotMsMedian: "tpotMsMedian",
  itlMsMean: "itlMsMean",
  acceptLength: "acceptLengthTokPerStep",
} as const;

describe("GET /api/runs/:id/export", () => {
  test("benchmark points: the CSV parses back to exactly the stored numbers, with units in the column names", async () => {
    const { run, id } = await startRun("benchmark", 'sweep, TP=2 "MTP"', {
      config: { model: "Qwen/Qwen3.6-27B" },
    });
    await push([
      {
        type: "run.benchmark",
        run,
        points: [
          {
            key: "c1",
            concurrency: 1,
            completed: 8,
            failed: 0,
            durationS: 30.123456789,
            outputTokPerS: 26.5,
            totalTokPerS: 53.00000000000001,
            ttftMsMedian: 80.25,
            tpotMsMedian: 37.7,
            acceptLength: 3.14159,
          },
          {
            key: "c32",
            concurrency: 32,
            completed: 256,
            durationS: 112.5,
            outputTokPerS: 577.8,
            ttftMsMedian: 1234.5678,
            ttftMsP99: "Infinity",
            tpotMsMedian: 52.1,
            itlMsMean: "NaN",
          },
          {
            key: "rate-inf",
            requestRate: null,
            requestRateUnbounded: true,
            completed: 0,
            outputTokPerS: 0,
          },
          { key: "r4", requestRate: 4.5, completed: 100, outputTokPerS: 1e-7 },
        ],
      },
    ]);
    const { res, rows, fields } = await csvOf(`/api/runs/${id}/export?data=points&format=csv`);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="run-${id}-points.csv"`,
    );
    for (const name of [
      "outputTokPerS",
      "ttftMsMedian",
      "durationS",
      "requestRateReqPerS",
      "inputLenTok",
      "completedRequests",
      "acceptLengthTokPerStep",
      "updatedAt",
    ])
      expect(fields).toContain(name);

    const stored = (await pool.query(`SELECT * FROM "BenchmarkPoint" WHERE "runId" = $1`, [id]))
      .rows as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.key).sort()).toEqual(stored.map((s) => s.key).sort());
    for (const s of stored) {
      const row = rows.find((r) => r.key === s.key)!;
      for (const [column, csvName] of Object.entries(POINT_COLUMNS))
        expect([s.key, column, num(row[csvName])]).toEqual([s.key, column, s[column]]);
      expect(row.requestRateUnbounded).toBe(String(s.requestRateUnbounded));
      expect(row.updatedAt).toBe((s.updatedAt as Date).toISOString());
    }
    const c32 = rows.find((r) => r.key === "c32")!;
    expect([c32.ttftMsP99, c32.itlMsMean, c32.ttftMsMean]).toEqual(["Infinity", "NaN", ""]);
  });

  test("metrics: every point of every key (beyond one read batch), in key/step order, NaN and 64-bit steps exact", async () => {
    const { run, id } = await startRun("training", "drafter training");
    const loss = Array.from({ length: 12_000 }, (_, step) => ({
      key: "loss",
      step,
      value: step === 777 ? "NaN" : 2 / (1 + step / 500) + Math.sin(step) / 1000,
    }));
    for (let i = 0; i < loss.length; i += 6000)
      await push([{ type: "run.metrics", run, points: loss.slice(i, i + 6000) }]);
    await push([
      {
        type: "run.metrics",
        run,
        points: [
          { key: "lr", step: "9223372036854775807", value: 3e-4 },
          { key: "lr", step: "9007199254740993", value: "-Infinity" },
          { key: "lr", step: 5, value: "Infinity" },
          { key: "eval/loss, smoothed", step: 0, value: 1.5 },
        ],
      },
    ]);
    const { res, rows, fields } = await csvOf(`/api/runs/${id}/export?data=metrics`);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="run-${id}-metrics.csv"`,
    );
    expect(fields).toEqual(["key", "step", "value", "ts"]);

    // Both stores are read: the loss frames went in as blocks ("MetricBlock"), the small frame as rows.
    const kept = (
      await pool.query(
        `SELECT (SELECT count(*) FROM "MetricBlock" WHERE "runId" = $1)::int AS blocks, (SELECT count(*) FROM "MetricRow" WHERE "runId" = $1)::int AS rows`,
        [id],
      )
    ).rows[0];
    expect(kept).toEqual({ blocks: 40, rows: 4 }); // 6,000-point frames cut into blocks of 300
    const stored = (
      await pool.query<{ key: string; step: string; value: number; ts: Date }>(
        `SELECT key, step::text AS step, value, ts FROM "MetricPoint" m WHERE "runId" = $1 ORDER BY m.key, m.step`,
        [id],
      )
    ).rows;
    expect(rows.length).toBe(12_004);
    expect(rows.map((r) => [r.key, r.step])).toEqual(stored.map((s) => [s.key, s.step]));
    expect(rows.map((r) => Number(r.value))).toEqual(stored.map((s) => s.value));
    expect(rows.map((r) => r.ts)).toEqual(stored.map((s) => s.ts.toISOString()));
    const lr = rows.filter((r) => r.key === "lr");
    expect(lr.map((r) => [r.step, r.value])).toEqual([
      ["5", "Infinity"],
      ["9007199254740993", "-Infinity"],
      ["9223372036854775807", "0.0003"],
    ]);
    expect(rows.find((r) => r.key === "loss" && r.step === "777")!.value).toBe("NaN");

    // JSON: the same points, non-finite values as strings, steps beyond 2^53 as decimal strings.
    const json = (await (await get(`/api/runs/${id}/export?data=metrics&format=json`)).json()) as {
      run: { id: number };
      data: string;
      rows: Array<{ key: string; step: number | string; value: number | string }>;
    };
    expect(json.run.id).toBe(id);
    expect(json.data).toBe("metrics");
    expect(json.rows.length).toBe(12_004);
    expect(json.rows.filter((r) => r.key === "lr").map((r) => [r.step, r.value])).toEqual([
      [5, "Infinity"],
      ["9007199254740993", "-Infinity"],
      ["9223372036854775807", 0.0003],
    ]);
  });

  test("evals: raw counts, tokens produced and τ; progress: one column per counter", async () => {
    const { run, id } = await startRun("eval", "eval step-4000");
    const uri = "s3://drafters/dflash/step-4000";
    await push([
      {
        type: "run.eval",
        run,
        results: [
          {
            key: "he/1",
            checkpoint: { step: 4000, uri },
            promptId: "he/1",
            category: "code",
            dataset: "humaneval",
            verifySteps: 200,
            acceptedTokens: 1100,
            draft: { blockSize: 16, topk: 8 },
            outputTokPerS: 88.5,
          },
          {
            key: "gsm/1",
            checkpoint: { step: 4000, uri },
            promptId: "gsm/1",
            category: "math",
            verifySteps: 37,
            acceptedTokens: 50,
          },
        ],
      },
    ]);
    const { rows } = await csvOf(`/api/runs/${id}/export?data=evals&format=csv`);
    const stored = (
      await pool.query<{ key: string; verifySteps: number; acceptedTokens: number }>(
        `SELECT key, "verifySteps", "acceptedTokens" FROM "EvalResult" WHERE "runId" = $1 ORDER BY key`,
        [id],
      )
    ).rows;
    expect(rows.map((r) => [r.key, num(r.verifySteps), num(r.acceptedTokens)])).toEqual(
      stored.map((s) => [s.key, s.verifySteps, s.acceptedTokens]),
    );
    const he = rows.find((r) => r.key === "he/1")!;
    expect(he).toMatchObject({
      checkpointStep: "4000",
      checkpointUri: uri,
      category: "code",
      dataset: "humaneval",
      tokensProduced: "1300",
      tau: "6.5",
      draft: '{"blockSize":16,"topk":8}',
      outputTokPerS: "88.5",
    });
    expect(num(rows.find((r) => r.key === "gsm/1")!.tau)).toBe((50 + 37) / 37);

    const pipe = await startRun("extraction", "extract 914K");
    await push([
      {
        type: "run.progress",
        run: pipe.run,
        workerId: "gpu0",
        bootId: "b1",
        ts: 1_764_409_200_000,
        done: 10,
        counters: { "s3.uploaded": 4, "disk.freeBytes": 9e11 },
      },
      {
        type: "run.progress",
        run: pipe.run,
        workerId: "gpu1",
        bootId: "b9",
        ts: 1_764_409_201_000,
        done: 7,
      },
      {
        type: "run.progress",
        run: pipe.run,
        workerId: "gpu0",
        bootId: "b1",
        ts: 1_764_409_202_000,
        done: 25,
        counters: { "s3.uploaded": 9, "disk.freeBytes": 8.5e11 },
      },
    ]);
    const progress = await csvOf(`/api/runs/${pipe.id}/export?data=progress&format=csv`);
    expect(progress.fields).toEqual([
      "ts",
      "workerId",
      "bootId",
      "doneItems",
      "counters.disk.freeBytes",
      "counters.s3.uploaded",
    ]);
    expect(
      progress.rows.map((r) => [
        r.ts,
        r.workerId,
        num(r.doneItems),
        num(r["counters.s3.uploaded"]),
        num(r["counters.disk.freeBytes"]),
      ]),
    ).toEqual([
      ["2025-11-29T09:40:00.000Z", "gpu0", 10, 4, 9e11],
      ["2025-11-29T09:40:01.000Z", "gpu1", 7, null, null],
      ["2025-11-29T09:40:02.000Z", "gpu0", 25, 9, 8.5e11],
    ]);

    const summary = (await (await get(`/api/runs/${pipe.id}/export/summary`)).json()) as {
      rows: Record<string, number>;
    };
    expect(summary.rows).toEqual({ points: 0, metrics: 0, evals: 0, progress: 3 });
  });

  test("bad parameters are 400 with a specific code, an unknown run 404, no credentials 401", async () => {
    const { id } = await startRun("benchmark", "params");
    const code = async (path: string, auth = true) => {
      const res = await get(path, auth);
      return [res.status, ((await res.json()) as { error: { code: string } }).error.code];
    };
    expect(await code(`/api/runs/${id}/export`)).toEqual([400, "invalid_export_data"]);
    expect(await code(`/api/runs/${id}/export?data=logs`)).toEqual([400, "invalid_export_data"]);
    expect(await code(`/api/runs/${id}/export?data=points&format=xlsx`)).toEqual([
      400,
      "invalid_export_format",
    ]);
    expect(await code(`/api/runs/abc/export?data=points`)).toEqual([400, "invalid_query"]);
    expect(await code(`/api/runs/999999/export?data=points`)).toEqual([404, "not_found"]);
    expect(await code(`/api/runs/${id}/export?data=points`, false)).toEqual([401, "unauthorized"]);
    expect(await code(`/api/compare/export?ids=${id}&data=metrics`)).toEqual([
      400,
      "invalid_export_data",
    ]);
    expect(await code(`/api/compare/export?format=csv`)).toEqual([400, "invalid_query"]);
    expect(await code(`/api/compare/export?ids=${id},abc`)).toEqual([400, "invalid_query"]);
    expect(
      await code(
        `/api/compare/export?ids=${Array.from({ length: 13 }, (_, i) => i + 1).join(",")}`,
      ),
    ).toEqual([400, "invalid_query"]);
    expect(await code(`/api/compare/export?ids=${id},999998`)).toEqual([404, "not_found"]);
  });
});

describe("GET /api/compare/export", () => {
  test("the points of every compared run, each row naming its run, parse back to the stored numbers", async () => {
    const a = await startRun("benchmark", "TP8");
    const b = await startRun("benchmark", "EP8, MTP");
    await push([
      {
        type: "run.benchmark",
        run: a.run,
        points: [
          { key: "c1", concurrency: 1, completed: 8, outputTokPerS: 26.5 },
          { key: "c64", concurrency: 64, completed: 512, outputTokPerS: 1800.25 },
        ],
      },
      {
        type: "run.benchmark",
        run: b.run,
        points: [
          { key: "c1", concurrency: 1, completed: 8, outputTokPerS: 31.75, ttftMsMedian: "NaN" },
        ],
      },
    ]);
    const { res, rows, fields } = await csvOf(`/api/compare/export?ids=${b.id},${a.id}&format=csv`);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="compare-${b.id}-${a.id}-points.csv"`,
    );
    expect(fields.slice(0, 4)).toEqual(["runId", "runKey", "runName", "key"]);
    const stored = (
      await pool.query<{
        runId: number;
        key: string;
        outputTokPerS: number;
        ttftMsMedian: number | null;
      }>(
        `SELECT "runId", key, "outputTokPerS", "ttftMsMedian" FROM "BenchmarkPoint" WHERE "runId" = ANY($1) ORDER BY array_position($1, "runId"), concurrency`,
        [[b.id, a.id]],
      )
    ).rows;
    expect(
      rows.map((r) => [num(r.runId), r.key, num(r.outputTokPerS), num(r.ttftMsMedian)]),
    ).toEqual(stored.map((s) => [s.runId, s.key, s.outputTokPerS, s.ttftMsMedian]));
    expect(rows.map((r) => r.runName)).toEqual(["EP8, MTP", "TP8", "TP8"]);

    const json = (await (
      await get(`/api/compare/export?ids=${a.id},${b.id}&format=json`)
    ).json()) as {
      runs: Array<{ id: number }>;
      rows: Array<{ runId: number; outputTokPerS: number; ttftMsMedian: number | string | null }>;
    };
    expect(json.runs.map((r) => r.id)).toEqual([a.id, b.id]);
    expect(json.rows.map((r) => [r.runId, r.outputTokPerS, r.ttftMsMedian])).toEqual([
      [a.id, 26.5, null],
      [a.id, 1800.25, null],
      [b.id, 31.75, "NaN"],
    ]);
  });
});
