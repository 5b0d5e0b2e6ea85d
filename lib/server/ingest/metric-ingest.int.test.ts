import { afterAll, describe, expect, test } from "vitest";

import { settle } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// run.metrics through the writer (blocks by binary COPY for large appending batches, the COPY
// staging table for large batches of stored steps, unnest for small ones) (writers/metrics.ts,
// metric-blocks.ts, metric-stage.ts) and the
// O(keys) step-overflow check (metric-overflow.ts, "MetricSeries"), on a real PostgreSQL. One
// pooled connection, so every batch reuses the same staging table, including after a rollback.

const { pool, apply, ingest, ingestAt, startRun, close } = await ingestHarness("metric-host", {
  poolMax: 1,
});
afterAll(close);

const points = async (runId: number) =>
  (
    await pool.query<{ key: string; step: string; value: number; ts: Date }>(
      `SELECT key, step::text AS step, value, ts FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step`,
      [runId],
    )
  ).rows;
// The store's tables hold what the fold moved there: settle first (README.md of the metric store).
const alerts = async (runId: number) => {
  await settle(pool, runId);
  return (
    await pool.query<{ message: string }>(
      `SELECT message FROM "RunEvent" WHERE "runId" = $1 AND code = 'step_overflow' ORDER BY id`,
      [runId],
    )
  ).rows;
};
const maxSteps = async (runId: number) => {
  await settle(pool, runId);
  return (
    await pool.query<{ key: string; maxStep: string }>(
      `SELECT key, "maxStep"::text AS "maxStep" FROM "MetricSeries" WHERE "runId" = $1 ORDER BY key`,
      [runId],
    )
  ).rows;
};
const tierCount = async (runId: number) => {
  await settle(pool, runId);
  return Number(
    (
      await pool.query(
        `SELECT coalesce(sum(n + "nonFinite"), 0)::int AS c FROM "MetricTier" t JOIN "MetricSeries" s USING ("runId", key) WHERE t."runId" = $1 AND t.bits = s."topBits"`,
        [runId],
      )
    ).rows[0].c,
  );
};

/** Both write paths of new steps: a small batch merges `unnest` of bound arrays, one of 256+ points is COPYed as blocks. */
const PATHS = [
  ["unnest, small batch", 0],
  ["blocks by binary COPY", 300],
] as const;
const PAD_KEY = "pad";
const padding = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: PAD_KEY, step: i, value: i }));

describe("run.metrics ingest", () => {
  test("a block keeps extreme values exactly: 64-bit steps at both ends, NaN, ±Infinity, subnormal and largest doubles, an odd key, epoch-ms times", async () => {
    const { run, id } = await startRun("training");
    const values = [
      Number.NaN,
      Infinity,
      -Infinity,
      5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      0.1,
      -2.5e-300,
      123456789.125,
    ];
    const wire = (v: number) => (Number.isFinite(v) ? v : String(v));
    const key = 'ünï "q" \\ ,{}\t✓';
    const top = 2n ** 63n - 1n;
    const bottom = -(2n ** 63n);
    const sent = [
      ...Array.from({ length: 150 }, (_, i) => ({
        key,
        step: (top - 149n + BigInt(i)).toString(),
        value: values[i % values.length]!,
        ts: Date.UTC(2099, 11, 31) + i,
      })),
      ...Array.from({ length: 150 }, (_, i) => ({
        key: "neg",
        step: (bottom + BigInt(i)).toString(),
        value: values[(i + 3) % values.length]!,
        ts: Date.UTC(2000, 0, 1) + i,
      })),
    ];
    await ingest({
      type: "run.metrics",
      run,
      points: sent.map((p) => ({ ...p, value: wire(p.value) })),
    });
    const stored = await pool.query(
      `SELECT (SELECT count(*) FROM "MetricBlock" WHERE "runId" = $1)::int AS blocks, (SELECT count(*) FROM "MetricRow" WHERE "runId" = $1)::int AS rows`,
      [id],
    );
    expect(stored.rows[0]).toEqual({ blocks: 2, rows: 0 });
    // (points() orders by the step's text; here by its value.)
    const back = (await points(id)).sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : BigInt(a.step) < BigInt(b.step) ? -1 : 1,
    );
    const expected = [...sent].sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : BigInt(a.step) < BigInt(b.step) ? -1 : 1,
    );
    expect(back.map((p) => [p.key, p.step, p.ts.getTime()])).toEqual(
      expected.map((p) => [p.key, p.step, p.ts]),
    );
    back.forEach((p, i) =>
      expect(
        Object.is(p.value, expected[i]!.value) ||
          (Number.isNaN(p.value) && Number.isNaN(expected[i]!.value)),
      ).toBe(true),
    );
  });

  test("the same (key, step) twice in one batch — in one frame and across frames — stores the latest once; tiers count it once", async () => {
    const { run, id } = await startRun("training");
    await ingest(
      {
        type: "run.metrics",
        run,
        points: [
          { key: "loss", step: 1, value: 1 },
          { key: "loss", step: 2, value: 2 },
          { key: "loss", step: 1, value: 1.5 },
        ],
      },
      {
        type: "run.metrics",
        run,
        points: [
          { key: "loss", step: 2, value: "NaN" },
          { key: "lr", step: 2, value: 0.1 },
          { key: "loss", step: 2, value: 2.5 },
        ],
      },
    );
    expect((await points(id)).map((p) => [p.key, p.step, p.value])).toEqual([
      ["loss", "1", 1.5],
      ["loss", "2", 2.5],
      ["lr", "2", 0.1],
    ]);
    expect(await tierCount(id)).toBe(3);
    // Replaced across batches: the tiers follow the new value.
    await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 2, value: 9 }] });
    await settle(pool, id);
    const max = (
      await pool.query(
        `SELECT "maxValue" FROM "MetricTier" t JOIN "MetricSeries" s USING ("runId", key) WHERE t."runId" = $1 AND t.bits = s."topBits" AND key = 'loss'`,
        [id],
      )
    ).rows[0];
    expect(max.maxValue).toBe(9);
    expect(await tierCount(id)).toBe(3);
  });

  test.each(PATHS)(
    "keys with tabs, newlines and backslashes, 64-bit steps, ±Infinity and ts survive (%s); points without ts get the receive time",
    async (_path, pad) => {
      const { run, id } = await startRun("training");
      const at = new Date("2026-11-30T12:00:00.000Z");
      await ingestAt(at, {
        type: "run.metrics",
        run,
        points: [
          { key: "a\tb\\c\nd\re", step: "-9223372036854775808", value: "-Infinity" },
          {
            key: "τ",
            step: "9223372036854775807",
            value: "Infinity",
            ts: Date.UTC(2026, 10, 29, 1, 2, 3, 456),
          },
          { key: "τ", step: 7, value: -0.000123 },
          ...padding(pad),
        ],
      });
      expect((await points(id)).filter((p) => p.key !== PAD_KEY)).toEqual([
        { key: "a\tb\\c\nd\re", step: "-9223372036854775808", value: -Infinity, ts: at },
        { key: "τ", step: "7", value: -0.000123, ts: at },
        {
          key: "τ",
          step: "9223372036854775807",
          value: Infinity,
          ts: new Date("2026-11-29T01:02:03.456Z"),
        },
      ]);
    },
  );

  test("a batch of 25,000 points (several COPY chunks) is stored whole", async () => {
    const { run, id } = await startRun("training");
    const frame = (f: number) => ({
      type: "run.metrics",
      run,
      points: Array.from({ length: 5000 }, (_, i) => ({
        key: `k${i % 5}`,
        step: f * 1000 + Math.floor(i / 5),
        value: i,
      })),
    });
    await ingest(...[0, 1, 2, 3, 4].map(frame));
    const stored = (
      await pool.query(
        `SELECT count(*)::int AS n, sum(value)::float8 AS total FROM "MetricPoint" WHERE "runId" = $1`,
        [id],
      )
    ).rows[0];
    expect(stored).toEqual({ n: 25_000, total: 5 * ((4999 * 5000) / 2) });
    expect(await tierCount(id)).toBe(25_000);
  });

  test("one batch for two runs stores each run's points under its own run", async () => {
    const a = await startRun("training");
    const b = await startRun("training");
    await ingest(
      { type: "run.metrics", run: a.run, points: [{ key: "loss", step: 1, value: 1 }] },
      {
        type: "run.metrics",
        run: b.run,
        points: [
          { key: "loss", step: 1, value: 2 },
          { key: "loss", step: 2, value: 3 },
        ],
      },
    );
    expect((await points(a.id)).map((p) => p.value)).toEqual([1]);
    expect((await points(b.id)).map((p) => p.value)).toEqual([2, 3]);
    expect([await tierCount(a.id), await tierCount(b.id)]).toEqual([1, 2]);
  });

  test.each(PATHS)(
    "a frame PostgreSQL refuses (a NUL in a key) is rejected alone (%s), also on the batch that first created the staging table",
    async (_path, pad) => {
      // Drop the connection's staging table: the next batch creates it in its transaction, which then rolls back.
      await pool.query(`DISCARD TEMP`);
      const { run, id } = await startRun("training");
      const outcomes = await apply(
        { type: "run.metrics", run, points: [{ key: "loss", step: 1, value: 1 }] },
        {
          type: "run.metrics",
          run,
          points: [{ key: "bad\u0000key", step: 1, value: 1 }, ...padding(pad)],
        },
        { type: "run.metrics", run, points: [{ key: "loss", step: 2, value: 2 }, ...padding(pad)] },
      );
      expect(outcomes.map((o) => (o.ok ? "ok" : o.code))).toEqual(["ok", "invalid_frame", "ok"]);
      expect((await points(id)).filter((p) => p.key !== PAD_KEY).map((p) => p.step)).toEqual([
        "1",
        "2",
      ]);
    },
  );

  test("the step-overflow check reads the per-key highest step: across batches, within one batch, and from a NaN point", async () => {
    const { run, id } = await startRun("training");
    // Within one batch (no stored step yet): 4294967290 then 6.
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: 4294967290, value: 1 },
        { key: "loss", step: 6, value: 1 },
      ],
    });
    expect((await alerts(id)).map((a) => a.message)).toEqual([
      expect.stringContaining("from 4294967290 back to 6"),
    ]);
    // The highest step of a key may be a NaN point; it still counts.
    await ingest({
      type: "run.metrics",
      run,
      points: [{ key: "grad", step: 4294967300, value: "NaN" }],
    });
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "grad", step: 8, value: 1 },
        { key: "grad", step: 4294967301, value: 1 },
      ],
    });
    expect(await alerts(id)).toHaveLength(2);
    // An ordinary resume (lower step, far from 2^32 back) raises nothing; the highest step stays.
    await ingest({
      type: "run.metrics",
      run,
      points: [{ key: "loss", step: 4294967000, value: 2 }],
    });
    expect(await alerts(id)).toHaveLength(2);
    expect(await maxSteps(id)).toEqual([
      { key: "grad", maxStep: "4294967301" },
      { key: "loss", maxStep: "4294967290" },
    ]);
    const fromRaw = (
      await pool.query(
        `SELECT key, max(step)::text AS "maxStep" FROM "MetricPoint" WHERE "runId" = $1 GROUP BY key ORDER BY key`,
        [id],
      )
    ).rows;
    expect(await maxSteps(id)).toEqual(fromRaw);
  });
});

describe("MetricPoint without a foreign key", () => {
  test("deleting a run still deletes its points (trigger), and its tiers, non-finite copy and max-step rows (cascade)", async () => {
    const { run, id } = await startRun("training");
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: 1, value: 1 },
        { key: "loss", step: 2, value: "NaN" },
      ],
    });
    const other = await startRun("training");
    await ingest({
      type: "run.metrics",
      run: other.run,
      points: [{ key: "loss", step: 1, value: 1 }],
    });
    await pool.query(`DELETE FROM "Run" WHERE id = $1`, [id]);
    for (const table of ["MetricPoint", "MetricTier", "MetricNonFinite", "MetricSeries"]) {
      const n = (
        await pool.query(`SELECT count(*)::int AS n FROM "${table}" WHERE "runId" = $1`, [id])
      ).rows[0].n;
      expect([table, n]).toEqual([table, 0]);
    }
    expect(await points(other.id)).toHaveLength(1);
  });
});
