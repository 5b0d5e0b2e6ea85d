import { afterAll, describe, expect, test } from "vitest";

import { STORED_TIER_BITS, topBitsOf } from "@/lib/metrics/tiers";
import { rebuildRunTiers, settle } from "@/lib/server/metric-store";
import { seededRng } from "@/scripts/demo/rng";
import { ingestHarness } from "@/test/support/ingest";

// The stored tiers (MetricTier) and the non-finite copy (MetricNonFinite), maintained by the real
// ingest path, equal a brute-force summary of the raw MetricPoint rows after random, out-of-order
// and replaced points (a resumed attempt re-sending steps with other values).

const { pool, ingest, startRun, close } = await ingestHarness("tier-host");
afterAll(close);

type Wire = { key: string; step: string; value: number | string };

/** Brute force over raw rows: per (bits, key, bucket) the count, the extremes and the ends, straight from the definitions. */
async function bruteForce(runId: number): Promise<Map<string, string>> {
  const raw = (
    await pool.query<{ key: string; step: string; value: number }>(
      `SELECT key, step::text AS step, value FROM "MetricPoint" WHERE "runId" = $1`,
      [runId],
    )
  ).rows;
  // Tiers are kept up to each key's top tier; it must hold all of the key's points in one bucket.
  const tops = await topTiers(runId);
  for (const key of new Set(raw.map((r) => r.key))) {
    const steps = raw.filter((r) => r.key === key).map((r) => BigInt(r.step));
    const [lo, hi] = [
      steps.reduce((a, b) => (b < a ? b : a)),
      steps.reduce((a, b) => (b > a ? b : a)),
    ];
    expect(tops.get(key), `top tier of ${key}`).toBeGreaterThanOrEqual(topBitsOf(lo, hi));
  }
  const groups = new Map<string, Array<{ step: bigint; value: number }>>();
  for (const bits of STORED_TIER_BITS) {
    for (const r of raw) {
      if (bits > tops.get(r.key)!) continue;
      const step = BigInt(r.step);
      const id = `${bits}|${r.key}|${step >> BigInt(bits)}`;
      const list = groups.get(id) ?? [];
      list.push({ step, value: r.value });
      groups.set(id, list);
    }
  }
  const out = new Map<string, string>();
  for (const [id, list] of groups) {
    const fin = list
      .filter((p) => Number.isFinite(p.value))
      .sort((a, b) => (a.step < b.step ? -1 : 1));
    const byValue = (dir: 1 | -1) =>
      [...fin].sort((a, b) => dir * (a.value - b.value) || (a.step < b.step ? -1 : 1))[0];
    const lo = byValue(1);
    const hi = byValue(-1);
    out.set(
      id,
      JSON.stringify([
        fin.length,
        list.length - fin.length,
        lo?.step.toString() ?? null,
        lo?.value ?? null,
        hi?.step.toString() ?? null,
        hi?.value ?? null,
        fin[0]?.step.toString() ?? null,
        fin[0]?.value ?? null,
        fin.at(-1)?.step.toString() ?? null,
        fin.at(-1)?.value ?? null,
      ]),
    );
  }
  return out;
}

async function topTiers(runId: number): Promise<Map<string, number>> {
  const rows = (
    await pool.query<{ key: string; topBits: number }>(
      `SELECT key, "topBits" FROM "MetricSeries" WHERE "runId" = $1`,
      [runId],
    )
  ).rows;
  return new Map(rows.map((r) => [r.key, r.topBits]));
}

async function stored(runId: number): Promise<Map<string, string>> {
  const rows = (
    await pool.query(
      `SELECT bits, key, bucket::text AS bucket, n, "nonFinite", "minStep"::text AS "minStep", "minValue", "maxStep"::text AS "maxStep", "maxValue",
              "firstStep"::text AS "firstStep", "firstValue", "lastStep"::text AS "lastStep", "lastValue"
         FROM "MetricTier" WHERE "runId" = $1`,
      [runId],
    )
  ).rows;
  return new Map(
    rows.map((r) => [
      `${r.bits}|${r.key}|${r.bucket}`,
      JSON.stringify([
        r.n,
        r.nonFinite,
        r.minStep,
        r.minValue,
        r.maxStep,
        r.maxValue,
        r.firstStep,
        r.firstValue,
        r.lastStep,
        r.lastValue,
      ]),
    ]),
  );
}

async function expectExact(runId: number) {
  await settle(pool, runId); // the store's tables hold what the fold moved there
  expect(await stored(runId)).toEqual(await bruteForce(runId));
  const special = (
    await pool.query(
      `SELECT key, step::text AS step, value FROM "MetricNonFinite" WHERE "runId" = $1 ORDER BY key, step`,
      [runId],
    )
  ).rows;
  const fromRaw = (
    await pool.query(
      `SELECT key, step::text AS step, value FROM "MetricPoint" WHERE "runId" = $1 AND value IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) ORDER BY key, step`,
      [runId],
    )
  ).rows;
  expect(special).toEqual(fromRaw);
}

describe("metric tiers", () => {
  test("random, out-of-order points across frames and batches equal a brute force over raw rows", async () => {
    const { run, id } = await startRun("training");
    const rnd = seededRng(7);
    const pick = (): Wire => {
      const r = rnd();
      const step =
        r < 0.8
          ? Math.floor(rnd() * 5000)
          : r < 0.9
            ? -Math.floor(rnd() * 2 ** 40)
            : Math.floor(rnd() * 2 ** 52);
      const v = rnd();
      const value =
        v < 0.03
          ? "NaN"
          : v < 0.04
            ? "Infinity"
            : v < 0.05
              ? "-Infinity"
              : Math.round(rnd() * 1000) / 10;
      return { key: rnd() < 0.7 ? "loss" : "lr", step: String(step), value };
    };
    // Several frames per call (one transaction, batched), several calls; steps repeat at random,
    // which also replaces values inside one call.
    for (let call = 0; call < 6; call++) {
      await ingest(
        ...Array.from({ length: 3 }, () => ({
          type: "run.metrics",
          run,
          points: Array.from({ length: 300 }, pick),
        })),
      );
    }
    await expectExact(id);

    // A rebuild from raw rows (rows loaded around ingest) gives the same tiers.
    await pool.query(`DELETE FROM "MetricTier" WHERE "runId" = $1`, [id]);
    await pool.query(`DELETE FROM "MetricNonFinite" WHERE "runId" = $1`, [id]);
    await rebuildRunTiers(pool, id);
    await expectExact(id);
  });

  test("replaced steps keep the tiers exact: a spike replaced by a normal value, NaN ↔ finite, 64-bit steps", async () => {
    const { run, id } = await startRun("training");
    const base = 2n ** 62n;
    const points: Wire[] = Array.from({ length: 600 }, (_, i) => ({
      key: "loss",
      step: String(i),
      value: 2 - i / 1000,
    }));
    points[123] = { key: "loss", step: "123", value: 50 }; // spike: the max of every tier holding step 123
    points[0] = { key: "loss", step: "0", value: -5 }; // min and first of its buckets
    points[599] = { key: "loss", step: "599", value: "NaN" };
    points.push(
      ...Array.from({ length: 40 }, (_, i) => ({
        key: "big",
        step: (base + BigInt(i) * 2n ** 36n).toString(),
        value: i,
      })),
    );
    await ingest({ type: "run.metrics", run, points });
    await expectExact(id);

    // A resumed attempt re-sends steps 0..199 and 598..599 with other values, out of order.
    const resent: Wire[] = Array.from({ length: 200 }, (_, i) => ({
      key: "loss",
      step: String(199 - i),
      value: 1 + (i % 7) / 100,
    }));
    resent.push(
      { key: "loss", step: "599", value: 0.25 },
      { key: "loss", step: "598", value: "-Infinity" },
      { key: "big", step: base.toString(), value: "NaN" },
    );
    await ingest(
      { type: "run.metrics", run, points: resent.slice(0, 100) },
      { type: "run.metrics", run, points: resent.slice(100) },
    );
    await expectExact(id);
    const max = (
      await pool.query(
        `SELECT "maxValue", "maxStep"::text AS step FROM "MetricTier" WHERE "runId" = $1 AND key = 'loss' AND bits = (SELECT "topBits" FROM "MetricSeries" s WHERE s."runId" = $1 AND s.key = 'loss')`,
        [id],
      )
    ).rows[0];
    // The spike at 123 is gone; the highest is now the first step the resumed attempt did not re-send.
    expect(max).toEqual({ maxValue: 1.8, step: "200" });

    // A fresh step and a replaced one in the same frame.
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: "5000", value: 99 },
        { key: "loss", step: "6", value: 0 },
      ],
    });
    await expectExact(id);
  });

  test("batches of 256+ points: appends stored as blocks, then a resumed attempt (replaced and out-of-order steps), then appends again stay exact", async () => {
    const { run, id } = await startRun("training");
    const frame = (steps: number[], value: (step: number) => number | string) => ({
      type: "run.metrics",
      run,
      points: steps.flatMap((step) =>
        ["loss", "lr"].map((key) => ({
          key,
          step: String(step),
          value: key === "lr" ? step / 1e4 : value(step),
        })),
      ),
    });
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => from + i);
    // Append-only: two frames in one batch, then a batch above every stored step.
    await ingest(
      frame(range(0, 200), (s) => 2 - s / 1000),
      frame(range(200, 400), (s) => (s === 300 ? "NaN" : 2 - s / 1000)),
    );
    await ingest(frame(range(400, 700), (s) => (s === 650 ? 40 : 1)));
    await expectExact(id);
    // Per key: 0..399 (300 + 100 points: blocks hold 300 at most) and 400..699.
    expect(await storage(id)).toEqual({ rows: 0, blocks: 6, blockPoints: 1400 });
    // A resumed attempt from step 600: re-sends 600..699 (the spike at 650 replaced), adds 700..799.
    await ingest(frame(range(600, 800), () => 0.5));
    await expectExact(id);
    // The block holding 400..699 became rows (and took the replaced values); 700..799 went the same way as that batch.
    expect(await storage(id)).toEqual({ rows: 2 * 400, blocks: 4, blockPoints: 800 });
    // Out of order: steps below the highest that were never stored (a gap), plus existing ones.
    // (Points deleted by SQL leave "MetricSeries" as it was: the highest step may only be too high, never too low.)
    await pool.query(`DELETE FROM "MetricPoint" WHERE "runId" = $1 AND step BETWEEN 100 AND 299`, [
      id,
    ]);
    await pool.query(`DELETE FROM "MetricTier" WHERE "runId" = $1`, [id]);
    await pool.query(`DELETE FROM "MetricNonFinite" WHERE "runId" = $1`, [id]);
    await rebuildRunTiers(pool, id);
    await ingest(frame(range(100, 400).reverse(), (s) => s));
    await expectExact(id);
    // Appending again after the fallback path.
    await ingest(frame(range(800, 1100), (s) => -s));
    await expectExact(id);
    const n = (
      await pool.query(
        `SELECT count(*)::int AS n, count(DISTINCT (key, step))::int AS d FROM "MetricPoint" WHERE "runId" = $1`,
        [id],
      )
    ).rows[0];
    expect(n).toEqual({ n: 2200, d: 2200 });
    const max = (
      await pool.query(
        `SELECT key, "maxStep"::text AS step FROM "MetricSeries" WHERE "runId" = $1 ORDER BY key`,
        [id],
      )
    ).rows;
    expect(max).toEqual([
      { key: "loss", step: "1099" },
      { key: "lr", step: "1099" },
    ]);
  });
  test("keys that PostgreSQL array literals must quote or escape (quotes, backslashes, commas, braces, spaces, NULL, unicode) keep their own tiers, series and NaN copies", async () => {
    const keys = [
      'a "quoted" key',
      "back\\slash\\",
      '\\"',
      "comma,key",
      "{braces}",
      " spaced out ",
      "NULL",
      "null",
      "tab\tkey",
      "ünï 日本 🚀",
      "plain",
    ];
    const { run, id } = await startRun("training");
    const frame = (steps: number[], value: (key: number, step: number) => number | string) => ({
      type: "run.metrics",
      run,
      points: steps.flatMap((step) =>
        keys.map((key, k) => ({ key, step: String(step), value: value(k, step) })),
      ),
    });
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => from + i);
    // A small batch (bound arrays) and a large one (COPY), both with NaN/±Infinity per key.
    await ingest(frame([0, 1, 2], (k, s) => (s === 1 ? "NaN" : k * 10 + s)));
    await ingest(
      frame(range(3, 40), (k, s) => (s === 17 ? (k % 2 ? "Infinity" : "-Infinity") : k - s / 100)),
    );
    await expectExact(id);
    const series = await pool.query<{ key: string; minStep: string; maxStep: string }>(
      `SELECT key, "minStep"::text AS "minStep", "maxStep"::text AS "maxStep" FROM "MetricSeries" WHERE "runId" = $1`,
      [id],
    );
    expect(new Map(series.rows.map((r) => [r.key, [r.minStep, r.maxStep]]))).toEqual(
      new Map(keys.map((k) => [k, ["0", "39"]])),
    );
    const special = await pool.query<{ key: string; n: number }>(
      `SELECT key, count(*)::int AS n FROM "MetricNonFinite" WHERE "runId" = $1 GROUP BY key`,
      [id],
    );
    expect(new Map(special.rows.map((r) => [r.key, r.n]))).toEqual(
      new Map(keys.map((k) => [k, 2])),
    );
    // A resumed attempt replaces steps (the repair path) and widens the range (a tier promotion).
    await ingest(frame([1, 17, 5000], (k) => k));
    await expectExact(id);
  });

  test("one batch holding several runs (small and 256+ point batches, appends and replaced steps, the same keys) keeps each run's tiers exact and apart", async () => {
    const runs: Array<Awaited<ReturnType<typeof startRun>>> = [];
    for (let i = 0; i < 4; i++) runs.push(await startRun("training"));
    const frame = (r: number, steps: number[], value: (step: number) => number | string) => ({
      type: "run.metrics",
      run: runs[r]!.run,
      points: steps.flatMap((step) =>
        ["loss", "lr"].map((key) => ({
          key,
          step: String(step),
          value: key === "lr" ? r + step / 1e4 : value(step),
        })),
      ),
    });
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => from + i);
    // Runs 0 and 2 small (merged in the batch's one statement), 1 and 3 large (one COPY for both).
    await ingest(
      frame(0, [1, 2, 3], (s) => 10 * s),
      frame(1, range(0, 300), (s) => 2 - s / 1000),
      frame(2, [5, 6], () => "NaN"),
      frame(3, range(0, 400), (s) => (s === 7 ? 99 : s)),
    );
    // Then, again in one batch: run 0 replaces a step and adds one, run 1 appends (COPY), run 2
    // replaces its NaN with a large out-of-order batch (the staging fallback), run 3 replaces its spike in a small batch.
    await ingest(
      frame(0, [2, 9], () => -1),
      frame(1, range(300, 600), () => 0.5),
      frame(2, range(0, 300).reverse(), (s) => s / 2),
      frame(3, [7], () => 1),
    );
    for (const { id } of runs) await expectExact(id);
    const counts = await pool.query<{ runId: number; n: number; max: string }>(
      `SELECT "runId", count(*)::int AS n, max(step)::text AS max FROM "MetricPoint" WHERE "runId" = ANY($1) GROUP BY "runId" ORDER BY "runId"`,
      [runs.map((r) => r.id)],
    );
    const byRun = new Map(counts.rows.map((r) => [r.runId, [r.n, r.max]]));
    expect(runs.map((r) => byRun.get(r.id))).toEqual([
      [8, "9"],
      [1200, "599"],
      [600, "299"],
      [800, "399"],
    ]);
    const series = await pool.query<{ runId: number; key: string; maxStep: string }>(
      `SELECT "runId", key, "maxStep"::text AS "maxStep" FROM "MetricSeries" WHERE "runId" = ANY($1) ORDER BY key`,
      [runs.map((r) => r.id)],
    );
    expect(
      runs.map((r) => series.rows.filter((s) => s.runId === r.id).map((s) => s.maxStep)),
    ).toEqual([
      ["9", "9"],
      ["599", "599"],
      ["299", "299"],
      ["399", "399"],
    ]);
    const spike = await pool.query(
      `SELECT "maxValue" FROM "MetricTier" WHERE "runId" = $1 AND key = 'loss' AND bits = (SELECT "topBits" FROM "MetricSeries" s WHERE s."runId" = $1 AND s.key = 'loss')`,
      [runs[3]!.id],
    );
    expect(spike.rows[0]).toEqual({ maxValue: 399 });
  });
});

/** How run `runId`'s points are stored: rows of "MetricRow", blocks of "MetricBlock" and the points in them. */
async function storage(
  runId: number,
): Promise<{ rows: number; blocks: number; blockPoints: number }> {
  await settle(pool, runId);
  const r = await pool.query(
    `SELECT (SELECT count(*) FROM "MetricRow" WHERE "runId" = $1)::int AS rows,
            (SELECT count(*) FROM "MetricBlock" WHERE "runId" = $1)::int AS blocks,
            (SELECT coalesce(sum(cardinality(steps)), 0) FROM "MetricBlock" WHERE "runId" = $1)::int AS "blockPoints"`,
    [runId],
  );
  return r.rows[0];
}
