import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { STEP_MAX, STEP_MIN, stepValue } from "@/lib/metrics/steps";
import {
  addPoint,
  COARSEST_BITS,
  compareBigint,
  coverRange,
  emptyAggregate,
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

import { readRawRanges, type RawColumns } from "./raw-ranges";
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

/** What {@link keyTotals} says of one key. */
export interface KeyTotals {
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
  await settleRunForRead(db, runId);
  const totals = await keyTotals(db, runId, opts.keys);
  // Per key: the plan over its finite step range clipped to the request, and the exact cover of
  // it. A key with at most `maxPoints` finite points in all has at most that many in range: it is
  // answered with its raw points of the range at once (what the cover's count would decide).
  const plans = new Map<
    string,
    { lo: bigint; hi: bigint; plan: SeriesPlan; pieces: TierPiece[] }
  >();
  const rawKeys: Array<{ key: string; lo: bigint; hi: bigint }> = [];
  for (const t of totals) {
    if (t.finite === 0 || t.lo === null || t.hi === null) continue;
    const lo = t.lo > from ? t.lo : from;
    const hi = t.hi < to ? t.hi : to;
    if (lo > hi) continue;
    if (t.finite <= maxPoints) {
      rawKeys.push({ key: t.key, lo, hi });
      continue;
    }
    const plan = planSeries(lo, hi, columns);
    plans.set(t.key, { lo, hi, plan, pieces: coverRange(lo, hi, plan.bits) });
  }
  const pieces = await readPieces(db, runId, plans);

  // A key whose finite points in range fit the budget is answered with them all (raw rows).
  const finite = new Map<string, StepPoint[]>();
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
 * Folds the points of run `runId` still waiting in "MetricPending" (settle-read.ts), so a read
 * after it holds every point acked before the call; one round trip when none wait.
 * @throws NotFoundError when no run has this id.
 */
export async function settleRunForRead(db: PrismaClient, runId: number): Promise<void> {
  const [run] = await db.$queryRaw<Array<{ pending: boolean }>>`
    SELECT EXISTS (SELECT 1 FROM "MetricPending" p WHERE p."runId" = r.id) AS pending FROM "Run" r WHERE r.id = ${runId}`;
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  if (run.pending) await settlePendingRuns(db, [runId]);
}

/**
 * Per key: points stored (finite / non-finite) and the finite step range, from the key's top tier
 * ("MetricSeries"."topBits": one bucket, or ≤ 16 for the coarsest; a key without a series row is read at the coarsest tier).
 */
export async function keyTotals(
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

/**
 * The tier rows of every key's cover, each as an aggregate: pieces of a stored tier (bits >=
 * FINEST_STORED_BITS) from "MetricTier" in one statement; finer pieces (bits 1-7, summed per
 * bucket, and raw steps, bits 0, one aggregate per point) from the raw points of their ranges
 * (raw-ranges.ts), summed here with the rules of lib/metrics/tiers.ts (addPoint).
 */
async function readPieces(
  db: PrismaClient,
  runId: number,
  plans: ReadonlyMap<string, { pieces: TierPiece[] }>,
): Promise<Map<string, PieceRow[]>> {
  const keys: string[] = [];
  const bits: number[] = [];
  const los: string[] = [];
  const his: string[] = [];
  const fine: Array<{ key: string; bits: number; lo: bigint; hi: bigint }> = [];
  for (const [key, p] of plans) {
    for (const piece of p.pieces) {
      if (piece.bits < FINEST_STORED_BITS) {
        const shift = BigInt(piece.bits);
        fine.push({
          key,
          bits: piece.bits,
          lo: piece.lo << shift,
          hi: (piece.hi << shift) | ((1n << shift) - 1n),
        });
        continue;
      }
      keys.push(key);
      bits.push(piece.bits);
      los.push(piece.lo.toString());
      his.push(piece.hi.toString());
    }
  }
  const out = new Map<string, PieceRow[]>();
  const add = (r: PieceRow) => {
    let list = out.get(r.key);
    if (!list) out.set(r.key, (list = []));
    list.push(r);
  };
  const [rows, raw] = await Promise.all([
    keys.length === 0 ? [] : readStoredPieces(db, runId, keys, bits, los, his),
    readRawRanges(db, runId, fine),
  ]);
  for (const r of rows) add(r);
  for (const [i, f] of fine.entries())
    for (const r of bucketAggregates(f.key, f.bits, raw[i]!)) add(r);
  return out;
}

/** Pieces of stored tiers, one statement: rows of "MetricTier" as aggregates. */
async function readStoredPieces(
  db: PrismaClient,
  runId: number,
  keys: string[],
  bits: number[],
  los: string[],
  his: string[],
): Promise<PieceRow[]> {
  // LATERAL keeps each piece an index range scan of tier rows by (runId, bits, key, bucket). A
  // piece of a tier coarser than the key's top tier (not kept: topBitsOf) reads the top tier's
  // buckets inside it instead; all of the key's points lie in one of them, so the summary is the same.
  return db.$queryRaw<PieceRow[]>`
    SELECT r.key, x.* FROM unnest(${keys}::text[], ${bits}::int2[], ${los}::int8[], ${his}::int8[]) AS r(key, bits, lo, hi)
     LEFT JOIN "MetricSeries" s ON s."runId" = ${runId} AND s.key = r.key
     CROSS JOIN LATERAL (SELECT LEAST(r.bits, coalesce(s."topBits", r.bits))::int2 AS bits, GREATEST(r.bits - coalesce(s."topBits", r.bits), 0)::int4 AS up) AS e
     CROSS JOIN LATERAL (
       SELECT t.n, t."nonFinite", t."minStep", t."minValue", t."maxStep", t."maxValue", t."firstStep", t."firstValue", t."lastStep", t."lastValue"
         FROM "MetricTier" t
        WHERE t."runId" = ${runId} AND t.bits = e.bits AND t.key = r.key
          AND t.bucket BETWEEN r.lo << e.up AND ((r.hi + 1) << e.up) - 1
     ) AS x`;
}

/**
 * The finite points `raw` (by ascending step) summed per bucket of tier `bits` (0: one aggregate
 * per point), with the orders of lib/metrics/tiers.ts: the lowest and highest value at its
 * smallest step, first and last by step. At most READ_FACTOR × 16 points a column.
 */
function bucketAggregates(key: string, bits: number, raw: RawColumns): PieceRow[] {
  const { steps, values } = raw;
  if (steps instanceof BigInt64Array) {
    const out: PieceRow[] = [];
    const span = 1n << BigInt(bits);
    let row: PieceRow | null = null;
    let end = 0n; // the current bucket's last step
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (row === null || step > end) {
        out.push((row = { key, ...emptyAggregate() }));
        end = ((step >> BigInt(bits)) + 1n) * span - 1n;
      }
      addPoint(row, step, values[i]!);
    }
    return out;
  }
  // Steps as exact numbers (within ±2^53): summed as numbers, the picked steps made bigints once
  // per bucket. Division by a power of two is exact, so floor(step / span) is the bucket.
  const out: PieceRow[] = [];
  const span = 2 ** bits;
  for (let i = 0; i < steps.length;) {
    const end = (Math.floor(steps[i]! / span) + 1) * span - 1;
    let minStep = steps[i]!;
    let minValue = values[i]!;
    let maxStep = minStep;
    let maxValue = minValue;
    const first = i;
    let n = 0;
    for (; i < steps.length && steps[i]! <= end; i++, n++) {
      const step = steps[i]!;
      const value = values[i]!;
      // Steps ascend, so a tie keeps the earlier (smaller) step, as addPoint does.
      if (value < minValue) {
        minValue = value;
        minStep = step;
      }
      if (value > maxValue) {
        maxValue = value;
        maxStep = step;
      }
    }
    out.push({
      key,
      n,
      nonFinite: 0,
      minStep: BigInt(minStep),
      minValue,
      maxStep: BigInt(maxStep),
      maxValue,
      firstStep: BigInt(steps[first]!),
      firstValue: values[first]!,
      lastStep: BigInt(steps[i - 1]!),
      lastValue: values[i - 1]!,
    });
  }
  return out;
}

/** Every finite raw point of each key's step range, by step. */
export async function readRaw(
  db: PrismaClient,
  runId: number,
  ranges: ReadonlyArray<{ key: string; lo: bigint; hi: bigint }>,
): Promise<Map<string, StepPoint[]>> {
  const out = new Map<string, StepPoint[]>();
  const raw = await readRawRanges(db, runId, ranges);
  for (const [i, r] of ranges.entries()) {
    const { steps, values } = raw[i]!;
    const points: StepPoint[] = new Array<StepPoint>(steps.length);
    for (let j = 0; j < steps.length; j++)
      points[j] = { step: BigInt(steps[j]!), value: values[j]! };
    out.set(r.key, points);
  }
  return out;
}

/** Every NaN/±Infinity point of `keys` with a step in from..to, by step. */
export async function readNonFinite(
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
export function mergeByStep(a: readonly StepPoint[], b: readonly StepPoint[]): StepPoint[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  return [...a, ...b].sort((x, y) => compareBigint(x.step, y.step));
}
