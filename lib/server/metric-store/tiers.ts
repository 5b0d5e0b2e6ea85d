import type pg from "pg";

import {
  FINEST_STORED_BITS,
  STORED_TIER_BITS,
  TIER_FANOUT_BITS,
  tierRowsOf,
  type PointColumns,
} from "@/lib/metrics/tiers";
import { BinaryArray, binaryArray } from "@/lib/server/database/binary-array";

import type { RunPoints, SqlPart, TierPromotion } from "./write-types";

/**
 * Keeps "MetricTier" (lib/metrics/tiers.ts) and "MetricNonFinite" current for one run's batch of
 * metric points, inside the ingest transaction that wrote them ("MetricRow" or "MetricBlock", read as the view "MetricPoint"):
 * - every point of the batch is summarised in JS and merged into every tier by one upsert
 *   ({@link tierMergeSql}, a part of the writer's single statement, append.ts): counts add up,
 *   first/last/min/max take the better of the two; its NaN/±Infinity points are upserted into
 *   "MetricNonFinite" ({@link nonFiniteUpsertSql}) in the same statement;
 * - replaced steps (a resumed attempt re-sending a step with another value; the merge reports
 *   them) were merged as if new and may also have removed a bucket's extreme, so afterwards
 *   ({@link repairReplaced}) every bucket holding one is recomputed: the finest tier from the raw
 *   points (≤ 256 steps a bucket), each coarser one from the 16 buckets below it. Rare, and exact
 *   whatever the optimistic merge added to those buckets.
 */

/** Id of a (key, step) pair as `repairReplaced` expects it in `replaced`. */
export function pointId(key: string, step: bigint): string {
  return `${key}\u0000${step}`;
}

/**
 * After the single statement: recomputes every tier bucket (up to the key's top tier, `topBits`) holding a replaced step and removes
 * replaced steps that became finite from "MetricNonFinite". `replaced` are ids ({@link pointId})
 * of `points` that already existed. @throws whatever PostgreSQL raises.
 */
export async function repairReplaced(
  client: pg.PoolClient,
  runId: number,
  points: PointColumns,
  replaced: ReadonlySet<string>,
  topBits: (key: string) => number,
): Promise<void> {
  if (replaced.size === 0) return;
  const redone = pick(points, (i) => replaced.has(pointId(points.key[i]!, points.step[i]!)));
  await recomputeBuckets(client, runId, redone, topBits);
  const healed = pick(redone, (i) => Number.isFinite(redone.value[i]!));
  if (healed.key.length) {
    await client.query(
      `DELETE FROM "MetricNonFinite" n USING unnest($2::text[], $3::int8[]) d(key, step) WHERE n."runId" = $1 AND n.key = d.key AND n.step = d.step`,
      [runId, healed.key, healed.step.map(String)],
    );
  }
}

/** The points `keep(i)` selects. */
function pick(points: PointColumns, keep: (i: number) => boolean): PointColumns {
  const out = { key: [] as string[], step: [] as bigint[], value: [] as number[] };
  for (let i = 0; i < points.key.length; i++) {
    if (!keep(i)) continue;
    out.key.push(points.key[i]!);
    out.step.push(points.step[i]!);
    out.value.push(points.value[i]!);
  }
  return out;
}

/** `INSERT INTO "MetricNonFinite"` of the NaN/±Infinity points of every run of `runs` (null when there are none); parameters from `first`. */
export function nonFiniteUpsertSql(runs: readonly RunPoints[], first: number): SqlPart | null {
  const runIds = new BinaryArray("int4");
  const keys = new BinaryArray("text");
  const steps = new BinaryArray("int8");
  const values = new BinaryArray("float8");
  for (const { runId, points } of runs) {
    for (let i = 0; i < points.key.length; i++) {
      const value = points.value[i]!;
      if (Number.isFinite(value)) continue;
      runIds.push(runId);
      keys.push(points.key[i]!);
      steps.push(points.step[i]!);
      values.push(value);
    }
  }
  if (!runIds.length) return null;
  return {
    sql: `INSERT INTO "MetricNonFinite" ("runId", key, step, value) SELECT * FROM unnest($${first}::int4[], $${first + 1}::text[], $${first + 2}::int8[], $${first + 3}::float8[])
       ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value`,
    params: [runIds.toBuffer(), keys.toBuffer(), steps.toBuffer(), values.toBuffer()],
  };
}

/** Types of TIER_COLUMNS, in order, as the tier merge casts its parameters. */
const TIER_TYPES = [
  "int4",
  "int2",
  "text",
  "int8",
  "int4",
  "int4",
  "int8",
  "float8",
  "int8",
  "float8",
  "int8",
  "float8",
  "int8",
  "float8",
];

const TIER_COLUMNS = `"runId", bits, key, bucket, n, "nonFinite", "minStep", "minValue", "maxStep", "maxValue", "firstStep", "firstValue", "lastStep", "lastValue"`;

/**
 * `INSERT INTO "MetricTier"` adding the summaries of every run's points to its stored buckets of
 * every tier up to the key's top tier (`topBits(runId, key)`, after the batch; coarser tiers are
 * not kept, see topBitsOf); parameters from `first`.
 */
export function tierMergeSql(
  runs: readonly RunPoints[],
  first: number,
  topBits: (runId: number, key: string) => number,
): SqlPart {
  // One binary array per column, written in one pass (binary-array.ts: node-postgres' own text
  // encoding of 14 bound JS arrays cost more than computing the rows).
  const perRun = runs.map(({ runId, points }) => ({ runId, rows: tierRowsOf(points) }));
  // Sized for every row (some are skipped), so no column grows and copies as it is written.
  const size = perRun.reduce((n, r) => n + r.rows.length, 0);
  const int4 = () => new BinaryArray("int4", size);
  const int8 = () => new BinaryArray("int8", size);
  const float8 = () => new BinaryArray("float8", size);
  const [runIds, bits, keys, buckets] = [
    int4(),
    new BinaryArray("int2", size),
    new BinaryArray("text", size),
    int8(),
  ];
  const [n, nonFinite, minStep, minValue, maxStep, maxValue] = [
    int4(),
    int4(),
    int8(),
    float8(),
    int8(),
    float8(),
  ];
  const [firstStep, firstValue, lastStep, lastValue] = [int8(), float8(), int8(), float8()];
  for (const { runId, rows } of perRun) {
    const tops = new Map<string, number>();
    for (const row of rows) {
      let top = tops.get(row.key);
      if (top === undefined) tops.set(row.key, (top = topBits(runId, row.key)));
      if (row.bits > top || row.bits < FINEST_STORED_BITS) continue;
      const { agg } = row;
      runIds.push(runId);
      bits.push(row.bits);
      keys.push(row.key);
      buckets.push(row.bucket);
      n.push(agg.n);
      nonFinite.push(agg.nonFinite);
      minStep.push(agg.minStep);
      minValue.push(agg.minValue);
      maxStep.push(agg.maxStep);
      maxValue.push(agg.maxValue);
      firstStep.push(agg.firstStep);
      firstValue.push(agg.firstValue);
      lastStep.push(agg.lastStep);
      lastValue.push(agg.lastValue);
    }
  }
  // Comparisons with a NULL side (the stored bucket or the batch has no finite point) are NULL, so
  // CASE falls through to the stored value unless the stored side is the empty one.
  return {
    sql: `INSERT INTO "MetricTier" AS t (${TIER_COLUMNS})
     SELECT * FROM unnest(${TIER_TYPES.map((t, i) => `$${first + i}::${t}[]`).join(", ")})
     ON CONFLICT ("runId", bits, key, bucket) DO UPDATE SET
       n = t.n + EXCLUDED.n,
       "nonFinite" = t."nonFinite" + EXCLUDED."nonFinite",
       "minStep" = CASE WHEN t.n = 0 OR EXCLUDED."minValue" < t."minValue" OR (EXCLUDED."minValue" = t."minValue" AND EXCLUDED."minStep" < t."minStep") THEN EXCLUDED."minStep" ELSE t."minStep" END,
       "minValue" = CASE WHEN t.n = 0 OR EXCLUDED."minValue" < t."minValue" OR (EXCLUDED."minValue" = t."minValue" AND EXCLUDED."minStep" < t."minStep") THEN EXCLUDED."minValue" ELSE t."minValue" END,
       "maxStep" = CASE WHEN t.n = 0 OR EXCLUDED."maxValue" > t."maxValue" OR (EXCLUDED."maxValue" = t."maxValue" AND EXCLUDED."maxStep" < t."maxStep") THEN EXCLUDED."maxStep" ELSE t."maxStep" END,
       "maxValue" = CASE WHEN t.n = 0 OR EXCLUDED."maxValue" > t."maxValue" OR (EXCLUDED."maxValue" = t."maxValue" AND EXCLUDED."maxStep" < t."maxStep") THEN EXCLUDED."maxValue" ELSE t."maxValue" END,
       "firstStep" = CASE WHEN t.n = 0 OR EXCLUDED."firstStep" < t."firstStep" THEN EXCLUDED."firstStep" ELSE t."firstStep" END,
       "firstValue" = CASE WHEN t.n = 0 OR EXCLUDED."firstStep" < t."firstStep" THEN EXCLUDED."firstValue" ELSE t."firstValue" END,
       "lastStep" = CASE WHEN t.n = 0 OR EXCLUDED."lastStep" > t."lastStep" THEN EXCLUDED."lastStep" ELSE t."lastStep" END,
       "lastValue" = CASE WHEN t.n = 0 OR EXCLUDED."lastStep" > t."lastStep" THEN EXCLUDED."lastValue" ELSE t."lastValue" END`,
    params: [
      runIds,
      bits,
      keys,
      buckets,
      n,
      nonFinite,
      minStep,
      minValue,
      maxStep,
      maxValue,
      firstStep,
      firstValue,
      lastStep,
      lastValue,
    ].map((a) => a.toBuffer()),
  };
}

const SET_ALL = `ON CONFLICT ("runId", bits, key, bucket) DO UPDATE SET n = EXCLUDED.n, "nonFinite" = EXCLUDED."nonFinite",
  "minStep" = EXCLUDED."minStep", "minValue" = EXCLUDED."minValue", "maxStep" = EXCLUDED."maxStep", "maxValue" = EXCLUDED."maxValue",
  "firstStep" = EXCLUDED."firstStep", "firstValue" = EXCLUDED."firstValue", "lastStep" = EXCLUDED."lastStep", "lastValue" = EXCLUDED."lastValue"`;

/**
 * Fills the tiers a key gains when its top tier grows (series.ts, advanceSeries), before
 * the batch's summaries are merged: until this batch all of the key's points lay in ONE bucket of
 * its old top tier, so each new coarser tier's bucket holding them has that very summary. One
 * round trip for every promotion of a batch (rare: a key's top tier grows a few times in its life).
 * @throws whatever PostgreSQL raises.
 */
export async function promoteTiers(
  client: pg.PoolClient,
  promotions: readonly TierPromotion[],
): Promise<void> {
  if (!promotions.length) return;
  await client.query(
    `INSERT INTO "MetricTier" (${TIER_COLUMNS})
     SELECT t."runId", b.bits::int2, t.key, t.bucket >> (b.bits - t.bits), t.n, t."nonFinite", t."minStep", t."minValue", t."maxStep", t."maxValue",
            t."firstStep", t."firstValue", t."lastStep", t."lastValue"
       FROM unnest($1::int4[], $2::text[], $3::int2[], $4::int2[]) p("runId", key, "fromBits", "toBits")
       JOIN "MetricTier" t ON t."runId" = p."runId" AND t.key = p.key AND t.bits = p."fromBits"
      CROSS JOIN LATERAL generate_series(p."fromBits" + ${TIER_FANOUT_BITS}, p."toBits", ${TIER_FANOUT_BITS}) b(bits)
     ${SET_ALL}`,
    [
      binaryArray(
        "int4",
        promotions.map((p) => p.runId),
      ),
      binaryArray(
        "text",
        promotions.map((p) => p.key),
      ),
      binaryArray(
        "int2",
        promotions.map((p) => p.fromBits),
      ),
      binaryArray(
        "int2",
        promotions.map((p) => p.toBits),
      ),
    ],
  );
}

/**
 * SQL that recomputes tier `bits` from the next finer level (raw rows for the finest tier): for
 * the buckets listed in $3 (keys) / $4 (bucket numbers) when `scoped`, else for the whole run.
 * Parameters: $1 run id, $2 bits. Ordered array_agg picks the step/value of each extreme under the
 * orders of lib/metrics/tiers.ts. Children of bucket b: b << 4 … (b << 4) | 15.
 */
function recomputeSql(bits: number, scoped: boolean): string {
  const finer = bits - TIER_FANOUT_BITS;
  if (bits === FINEST_STORED_BITS) {
    // A bucket's points through pitwall_metric_points (migration metric_blocks): only the blocks meeting the bucket are read.
    const from = scoped
      ? `unnest($3::text[], $4::int8[]) b(key, bucket)
         CROSS JOIN LATERAL pitwall_metric_points($1::int4, b.key, b.bucket << $2::int4, (b.bucket << $2::int4) | ((1::int8 << $2::int4) - 1)) m`
      : `"MetricPoint" m`;
    return `INSERT INTO "MetricTier" (${TIER_COLUMNS})
      SELECT $1::int4, $2::int2, m.key, m.step >> $2::int4,
             count(*) FILTER (WHERE f.ok)::int4, count(*) FILTER (WHERE NOT f.ok)::int4,
             (array_agg(m.step ORDER BY m.value, m.step) FILTER (WHERE f.ok))[1], min(m.value) FILTER (WHERE f.ok),
             (array_agg(m.step ORDER BY m.value DESC, m.step) FILTER (WHERE f.ok))[1], max(m.value) FILTER (WHERE f.ok),
             min(m.step) FILTER (WHERE f.ok), (array_agg(m.value ORDER BY m.step) FILTER (WHERE f.ok))[1],
             max(m.step) FILTER (WHERE f.ok), (array_agg(m.value ORDER BY m.step DESC) FILTER (WHERE f.ok))[1]
        FROM ${from}
       CROSS JOIN LATERAL (SELECT m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) f(ok)
       ${scoped ? "" : `WHERE m."runId" = $1::int4`}
       GROUP BY m.key, m.step >> $2::int4
      ${SET_ALL}`;
  }
  const from = scoped
    ? `unnest($3::text[], $4::int8[]) b(key, bucket)
       JOIN "MetricTier" c ON c."runId" = $1::int4 AND c.bits = ${finer} AND c.key = b.key
                          AND c.bucket BETWEEN b.bucket << ${TIER_FANOUT_BITS} AND (b.bucket << ${TIER_FANOUT_BITS}) | ${(1 << TIER_FANOUT_BITS) - 1}`
    : `"MetricTier" c`;
  return `INSERT INTO "MetricTier" (${TIER_COLUMNS})
    SELECT $1::int4, $2::int2, c.key, c.bucket >> ${TIER_FANOUT_BITS},
           sum(c.n)::int4, sum(c."nonFinite")::int4,
           (array_agg(c."minStep" ORDER BY c."minValue", c."minStep") FILTER (WHERE c.n > 0))[1], min(c."minValue"),
           (array_agg(c."maxStep" ORDER BY c."maxValue" DESC, c."maxStep") FILTER (WHERE c.n > 0))[1], max(c."maxValue"),
           min(c."firstStep"), (array_agg(c."firstValue" ORDER BY c."firstStep") FILTER (WHERE c.n > 0))[1],
           max(c."lastStep"), (array_agg(c."lastValue" ORDER BY c."lastStep" DESC) FILTER (WHERE c.n > 0))[1]
      FROM ${from}
     WHERE c."runId" = $1::int4 AND c.bits = ${finer}
     GROUP BY c.key, c.bucket >> ${TIER_FANOUT_BITS}
    ${SET_ALL}`;
}

/** Recomputes, tier by tier from the finest up to each key's top tier, every bucket holding one of `points`. */
async function recomputeBuckets(
  client: pg.PoolClient,
  runId: number,
  points: PointColumns,
  topBits: (key: string) => number,
): Promise<void> {
  for (const bits of STORED_TIER_BITS) {
    const buckets = new Map<string, { key: string; bucket: bigint }>();
    points.key.forEach((key, i) => {
      if (bits > topBits(key)) return;
      const bucket = points.step[i]! >> BigInt(bits);
      buckets.set(pointId(key, bucket), { key, bucket });
    });
    const keys = [...buckets.values()].map((b) => b.key);
    const numbers = [...buckets.values()].map((b) => b.bucket.toString());
    if (!keys.length) break;
    await client.query(recomputeSql(bits, true), [runId, bits, keys, numbers]);
  }
}

/**
 * Rebuilds every tier of a run from its raw points (finest tier from the view MetricPoint, each coarser one
 * from the tier below), its non-finite copy and its per-key step ranges ("MetricSeries", top tier 60: every tier rebuilt is kept): for points loaded around ingest (the bench loads
 * millions of rows by SQL). @throws whatever PostgreSQL raises.
 */
export async function rebuildRunTiers(
  client: pg.Pool | pg.PoolClient,
  runId: number,
): Promise<void> {
  for (const bits of STORED_TIER_BITS) await client.query(recomputeSql(bits, false), [runId, bits]);
  await client.query(
    `INSERT INTO "MetricNonFinite" ("runId", key, step, value)
     SELECT "runId", key, step, value FROM "MetricPoint" WHERE "runId" = $1 AND value IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
     ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value`,
    [runId],
  );
  await client.query(
    `INSERT INTO "MetricSeries" ("runId", key, "minStep", "maxStep", "topBits")
     SELECT "runId", key, min(step), max(step), ${STORED_TIER_BITS[STORED_TIER_BITS.length - 1]} FROM "MetricPoint" WHERE "runId" = $1 GROUP BY "runId", key
     ON CONFLICT ("runId", key) DO UPDATE SET "minStep" = EXCLUDED."minStep", "maxStep" = EXCLUDED."maxStep", "topBits" = EXCLUDED."topBits"`,
    [runId],
  );
}
