import type pg from "pg";

import { topBitsOf } from "@/lib/metrics/tiers";
import { BinaryArray } from "@/lib/server/database/binary-array";

import type { RunPoints, SqlPart, TierPromotion } from "./write-types";

/**
 * "MetricSeries": one row per (run, key) with the key's highest and lowest step stored (NaN/±Infinity
 * points included) and the top tier kept for it (`topBits`, lib/metrics/tiers.ts topBitsOf). A
 * `run.metrics` batch reads the rows of its keys first ({@link readSeries}: the step-overflow check
 * and the COPY decision use the highest steps, the tier merge the top tiers), then writes the
 * advanced rows ({@link seriesUpsertSql}) in the statement that writes its summaries. The caller
 * holds the runs' store locks (store-lock.ts), so batches of one run never interleave between the
 * read and the write.
 */

/** One (run, key) series as stored before a batch. `minStep` null: not known (rows from before it was kept; the top tier is then 60). */
export interface SeriesState {
  minStep: bigint | null;
  maxStep: bigint;
  topBits: number;
}

/** Per run id: key → stored state. */
export type SeriesStates = Map<number, Map<string, SeriesState>>;

/** Reads the stored rows of every (run, key) of `runs` in one round trip. @throws whatever PostgreSQL raises. */
export async function readSeries(
  client: pg.PoolClient,
  runs: readonly RunPoints[],
): Promise<SeriesStates> {
  const runIds = new BinaryArray("int4");
  const keys = new BinaryArray("text");
  for (const { runId, points } of runs) {
    for (const key of new Set(points.key)) {
      runIds.push(runId);
      keys.push(key);
    }
  }
  const res = await client.query<{
    runId: number;
    key: string;
    minStep: string | null;
    maxStep: string;
    topBits: number;
  }>(
    `SELECT s."runId", s.key, s."minStep"::text AS "minStep", s."maxStep"::text AS "maxStep", s."topBits"
       FROM "MetricSeries" s JOIN unnest($1::int4[], $2::text[]) b("runId", key) ON s."runId" = b."runId" AND s.key = b.key`,
    [runIds.toBuffer(), keys.toBuffer()],
  );
  const out: SeriesStates = new Map();
  for (const r of res.rows) {
    let m = out.get(r.runId);
    if (!m) out.set(r.runId, (m = new Map()));
    m.set(r.key, {
      minStep: r.minStep === null ? null : BigInt(r.minStep),
      maxStep: BigInt(r.maxStep),
      topBits: r.topBits,
    });
  }
  return out;
}

/**
 * The states after the batch: per (run, key) of `runs` the widened step range and its top tier
 * (never lower than stored), only for keys whose row changes; and the keys whose top tier grows.
 */
export function advanceSeries(
  runs: readonly RunPoints[],
  stored: SeriesStates,
): { next: SeriesStates; promotions: TierPromotion[] } {
  const next: SeriesStates = new Map();
  const promotions: TierPromotion[] = [];
  for (const { runId, points } of runs) {
    const range = new Map<string, { lo: bigint; hi: bigint }>();
    for (let i = 0; i < points.key.length; i++) {
      const key = points.key[i]!;
      const step = points.step[i]!;
      const r = range.get(key);
      if (!r) range.set(key, { lo: step, hi: step });
      else if (step < r.lo) r.lo = step;
      else if (step > r.hi) r.hi = step;
    }
    const before = stored.get(runId);
    const changed = new Map<string, SeriesState>();
    for (const [key, { lo, hi }] of range) {
      const s = before?.get(key);
      if (!s) {
        changed.set(key, { minStep: lo, maxStep: hi, topBits: topBitsOf(lo, hi) });
        continue;
      }
      const minStep = s.minStep === null ? null : lo < s.minStep ? lo : s.minStep;
      const maxStep = hi > s.maxStep ? hi : s.maxStep;
      if (minStep === s.minStep && maxStep === s.maxStep) continue;
      const topBits =
        minStep === null ? s.topBits : Math.max(s.topBits, topBitsOf(minStep, maxStep));
      if (topBits > s.topBits)
        promotions.push({ runId, key, fromBits: s.topBits, toBits: topBits });
      changed.set(key, { minStep, maxStep, topBits });
    }
    if (changed.size) next.set(runId, changed);
  }
  return { next, promotions };
}

/** The top tier of (run, key) after the batch: `next`'s, else the stored one's (a key of the batch is in one of them). */
export function topBitsAfter(
  next: SeriesStates,
  stored: SeriesStates,
  runId: number,
  key: string,
): number {
  return (next.get(runId)?.get(key) ?? stored.get(runId)?.get(key))!.topBits;
}

/** `INSERT INTO "MetricSeries"` writing the rows of `next` (null when there are none); parameters from `first`. */
export function seriesUpsertSql(next: SeriesStates, first: number): SqlPart | null {
  const runIds = new BinaryArray("int4");
  const keys = new BinaryArray("text");
  const mins = new BinaryArray("int8");
  const maxs = new BinaryArray("int8");
  const tops = new BinaryArray("int2");
  for (const [runId, states] of next) {
    for (const [key, s] of states) {
      runIds.push(runId);
      keys.push(key);
      mins.push(s.minStep);
      maxs.push(s.maxStep);
      tops.push(s.topBits);
    }
  }
  if (!runIds.length) return null;
  const p = (i: number) => `$${first + i}`;
  // ON CONFLICT, not an UPDATE joined to unnest: the arbiter index is probed per row, where the
  // planner joined a plain UPDATE by a hash of the whole table (it guesses 100 rows for unnest).
  return {
    sql: `INSERT INTO "MetricSeries" ("runId", key, "minStep", "maxStep", "topBits")
          SELECT * FROM unnest(${p(0)}::int4[], ${p(1)}::text[], ${p(2)}::int8[], ${p(3)}::int8[], ${p(4)}::int2[])
          ON CONFLICT ("runId", key) DO UPDATE SET "minStep" = EXCLUDED."minStep", "maxStep" = EXCLUDED."maxStep", "topBits" = EXCLUDED."topBits"`,
    params: [runIds.toBuffer(), keys.toBuffer(), mins.toBuffer(), maxs.toBuffer(), tops.toBuffer()],
  };
}
