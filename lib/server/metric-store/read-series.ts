import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { STEP_MAX, STEP_MIN, stepValue } from "@/lib/metrics/steps";
import {
  COARSEST_BITS,
  compareBigint,
  coverRange,
  FINEST_STORED_BITS,
  m4Points,
  planSeries,
  type SeriesPlan,
  type StepPoint,
  type TierAggregate,
  type TierPiece,
} from "@/lib/metrics/tiers";
import { NotFoundError } from "@/lib/server/errors";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";

import { settlePendingRuns } from "./settle-read";

/** Default point budget per series (≈ 4 points per pixel column of a 250-column chart). */
export const DEFAULT_MAX_POINTS = 1000;

/** What a chart asks for: a point budget per series, optionally some keys and a step range (inclusive). */
export interface RunMetricsOptions {
  maxPoints?: number;
  keys?: readonly string[];
  fromStep?: bigint;
  toStep?: bigint;
}

interface KeyTotals {
  key: string;
  finite: number;
  nonFinite: number;
  lo: bigint | null;
  hi: bigint | null;
}

/** A tier row (or a raw point, as a one-point aggregate) of one key's cover. */
type PieceRow = TierAggregate & { key: string };

/**
 * A run's metric series for a chart, answered from the pre-aggregated tiers (lib/metrics/tiers.ts,
 * kept by ingest) so the cost follows the chart's width, not the points stored:
 * - per key, the finite points in the requested step range: all of them when they fit in
 *   `maxPoints` (a zoomed-in chart reads raw rows of its range only); otherwise ⌊maxPoints/4⌋
 *   equal-width columns of whole tier buckets, each giving its first, lowest, highest and last
 *   point (M4: the line's joins and every spike survive), so at most `maxPoints` finite points;
 * - every NaN/±Infinity point in the range, always (the chart marks each one);
 * - `total` is the number of points stored for the key (whole series, not just the range).
 * Keys in alphabetical order; steps exact (bigint in SQL, strings beyond 2^53 in the view).
 * Points still pending (fold.ts) are folded first, so every point acked before the call counts.
 * @throws NotFoundError when no run has this id; Error when points are pending and no raw pool is bound to `db`.
 */
export async function getRunMetrics(
  db: PrismaClient,
  runId: number,
  opts: RunMetricsOptions = {},
): Promise<RunMetricsView> {
  const maxPoints = Math.max(4, Math.floor(opts.maxPoints ?? DEFAULT_MAX_POINTS));
  const columns = Math.floor(maxPoints / 4);
  const from = opts.fromStep ?? STEP_MIN;
  const to = opts.toStep ?? STEP_MAX;
  // One round trip finds the run and whether points of it wait in "MetricPending"; those are
  // folded first (settle-read.ts), so the answer holds every point acked before the call.
  const [run] = await db.$queryRaw<Array<{ pending: boolean }>>`
    SELECT EXISTS (SELECT 1 FROM "MetricPending" p WHERE p."runId" = r.id) AS pending FROM "Run" r WHERE r.id = ${runId}`;
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  if (run.pending) await settlePendingRuns(db, [runId]);

  const totals = await keyTotals(db, runId, opts.keys);
  // Per key: the plan over its finite step range clipped to the request, and the exact cover of it.
  const plans = new Map<
    string,
    { lo: bigint; hi: bigint; plan: SeriesPlan; pieces: TierPiece[] }
  >();
  for (const t of totals) {
    if (t.finite === 0 || t.lo === null || t.hi === null) continue;
    const lo = t.lo > from ? t.lo : from;
    const hi = t.hi < to ? t.hi : to;
    if (lo > hi) continue;
    const plan = planSeries(lo, hi, columns);
    plans.set(t.key, { lo, hi, plan, pieces: coverRange(lo, hi, plan.bits) });
  }
  const pieces = await readPieces(db, runId, plans);

  // A key whose finite points in range fit the budget is answered with them all (raw rows).
  const finite = new Map<string, StepPoint[]>();
  const rawKeys: Array<{ key: string; lo: bigint; hi: bigint }> = [];
  for (const [key, p] of plans) {
    const rows = pieces.get(key) ?? [];
    const inRange = rows.reduce((sum, r) => sum + r.n, 0);
    if (inRange <= maxPoints && p.plan.bits === 0)
      finite.set(
        key,
        rows
          .map((r) => ({ step: r.firstStep!, value: r.firstValue! }))
          .sort((x, y) => compareBigint(x.step, y.step)),
      );
    else if (inRange <= maxPoints) rawKeys.push({ key, lo: p.lo, hi: p.hi });
    else {
      finite.set(key, m4Points(rows, p.lo, p.plan));
    }
  }
  const nonFiniteKeys = totals.filter((t) => t.nonFinite > 0).map((t) => t.key);
  const [raw, special] = await Promise.all([
    readRaw(db, runId, rawKeys),
    readNonFinite(db, runId, nonFiniteKeys, from, to),
  ]);
  for (const [key, points] of raw) finite.set(key, points);

  const series: MetricSeriesView[] = [];
  for (const t of totals) {
    const points = mergeByStep(finite.get(t.key) ?? [], special.get(t.key) ?? []);
    series.push({
      key: t.key,
      points: points.map((p) => ({ step: stepValue(p.step), value: p.value })),
      total: t.finite + t.nonFinite,
      shown: points.length,
    });
  }
  return { runId, maxPoints, series };
}

/**
 * Per key: points stored (finite / non-finite) and the finite step range, from the key's top tier
 * ("MetricSeries"."topBits": one bucket, or ≤ 16 for the coarsest; a key without a series row is read at the coarsest tier).
 */
async function keyTotals(
  db: PrismaClient,
  runId: number,
  keys: readonly string[] | undefined,
): Promise<KeyTotals[]> {
  const keyFilter =
    keys && keys.length > 0 ? Prisma.sql`AND t.key = ANY(${[...keys]}::text[])` : Prisma.empty;
  const rows = await db.$queryRaw<
    Array<{ key: string; finite: number; nonFinite: number; lo: bigint | null; hi: bigint | null }>
  >`
    SELECT t.key, sum(t.n)::float8 AS finite, sum(t."nonFinite")::float8 AS "nonFinite", min(t."firstStep") AS lo, max(t."lastStep") AS hi
      FROM "MetricTier" t LEFT JOIN "MetricSeries" s ON s."runId" = t."runId" AND s.key = t.key
     WHERE t."runId" = ${runId} AND t.bits = coalesce(s."topBits", ${COARSEST_BITS}::int2) ${keyFilter}
     GROUP BY t.key ORDER BY t.key`;
  return rows;
}

/** The tier rows (and raw rows, bits 0) of every key's cover, in one statement; each row as an aggregate. */
async function readPieces(
  db: PrismaClient,
  runId: number,
  plans: ReadonlyMap<string, { pieces: TierPiece[] }>,
): Promise<Map<string, PieceRow[]>> {
  const keys: string[] = [];
  const bits: number[] = [];
  const los: string[] = [];
  const his: string[] = [];
  for (const [key, p] of plans) {
    for (const piece of p.pieces) {
      keys.push(key);
      bits.push(piece.bits);
      los.push(piece.lo.toString());
      his.push(piece.hi.toString());
    }
  }
  const out = new Map<string, PieceRow[]>();
  if (keys.length === 0) return out;
  // LATERAL keeps each piece an index range scan: tier rows by (runId, bits, key, bucket), raw
  // points by (runId, key, step) through pitwall_metric_points, non-finite points left out (they
  // are read separately). A piece of a tier coarser than the key's top tier (not kept: topBitsOf)
  // reads the top tier's buckets inside it instead; all of the key's points lie in one of them, so
  // the summary is the same. A piece of a tier finer than the finest stored one (tier 4,
  // FINEST_STORED_BITS) is summed per bucket from the raw points of its range, with the orders of
  // lib/metrics/tiers.ts (at most READ_FACTOR × 16 points a column).
  const stored = Prisma.raw(String(FINEST_STORED_BITS));
  const rows = await db.$queryRaw<PieceRow[]>`
    SELECT r.key, x.* FROM unnest(${keys}::text[], ${bits}::int2[], ${los}::int8[], ${his}::int8[]) AS r(key, bits, lo, hi)
     LEFT JOIN "MetricSeries" s ON s."runId" = ${runId} AND s.key = r.key
     CROSS JOIN LATERAL (SELECT LEAST(r.bits, coalesce(s."topBits", r.bits))::int2 AS bits, GREATEST(r.bits - coalesce(s."topBits", r.bits), 0)::int4 AS up) AS e
     CROSS JOIN LATERAL (
       SELECT t.n, t."nonFinite", t."minStep", t."minValue", t."maxStep", t."maxValue", t."firstStep", t."firstValue", t."lastStep", t."lastValue"
         FROM "MetricTier" t
        WHERE r.bits >= ${stored} AND t."runId" = ${runId} AND t.bits = e.bits AND t.key = r.key
          AND t.bucket BETWEEN r.lo << e.up AND ((r.hi + 1) << e.up) - 1
       UNION ALL
       SELECT count(*)::int4, 0, (array_agg(m.step ORDER BY m.value, m.step))[1], min(m.value), (array_agg(m.step ORDER BY m.value DESC, m.step))[1], max(m.value),
              min(m.step), (array_agg(m.value ORDER BY m.step))[1], max(m.step), (array_agg(m.value ORDER BY m.step DESC))[1]
         FROM pitwall_metric_points(${runId}::int4, r.key, r.lo << r.bits::int4, (r.hi << r.bits::int4) | ((1::int8 << r.bits::int4) - 1)) m
        WHERE r.bits > 0 AND r.bits < ${stored} AND m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
        GROUP BY m.step >> r.bits::int4
       UNION ALL
       SELECT 1, 0, m.step, m.value, m.step, m.value, m.step, m.value, m.step, m.value
         FROM pitwall_metric_points(${runId}::int4, r.key, r.lo, r.hi) m
        WHERE r.bits = 0 AND m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
     ) AS x`;
  for (const r of rows) {
    let list = out.get(r.key);
    if (!list) out.set(r.key, (list = []));
    list.push(r);
  }
  return out;
}

/** Every finite raw point of each key's step range, by step. */
async function readRaw(
  db: PrismaClient,
  runId: number,
  ranges: ReadonlyArray<{ key: string; lo: bigint; hi: bigint }>,
): Promise<Map<string, StepPoint[]>> {
  const out = new Map<string, StepPoint[]>();
  if (ranges.length === 0) return out;
  const rows = await db.$queryRaw<Array<{ key: string; step: bigint; value: number }>>`
    SELECT r.key, m.step, m.value
      FROM unnest(${ranges.map((r) => r.key)}::text[], ${ranges.map((r) => r.lo.toString())}::int8[], ${ranges.map((r) => r.hi.toString())}::int8[]) AS r(key, lo, hi)
     CROSS JOIN LATERAL pitwall_metric_points(${runId}::int4, r.key, r.lo, r.hi) m
     WHERE m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
     ORDER BY r.key, m.step`;
  for (const r of rows) {
    let list = out.get(r.key);
    if (!list) out.set(r.key, (list = []));
    list.push({ step: r.step, value: r.value });
  }
  return out;
}

/** Every NaN/±Infinity point of `keys` with a step in from..to, by step. */
async function readNonFinite(
  db: PrismaClient,
  runId: number,
  keys: readonly string[],
  from: bigint,
  to: bigint,
): Promise<Map<string, StepPoint[]>> {
  const out = new Map<string, StepPoint[]>();
  if (keys.length === 0) return out;
  const rows = await db.$queryRaw<Array<{ key: string; step: bigint; value: number }>>`
    SELECT key, step, value FROM "MetricNonFinite"
     WHERE "runId" = ${runId} AND key = ANY(${[...keys]}::text[]) AND step BETWEEN ${from.toString()}::int8 AND ${to.toString()}::int8
     ORDER BY key, step`;
  for (const r of rows) {
    let list = out.get(r.key);
    if (!list) out.set(r.key, (list = []));
    list.push({ step: r.step, value: r.value });
  }
  return out;
}

/** Two step-sorted lists (disjoint steps) as one, by step. */
function mergeByStep(a: readonly StepPoint[], b: readonly StepPoint[]): StepPoint[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  return [...a, ...b].sort((x, y) => compareBigint(x.step, y.step));
}
