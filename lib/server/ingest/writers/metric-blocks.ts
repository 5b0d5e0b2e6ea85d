import type pg from "pg";
import type { PointColumns } from "@/lib/metrics/tiers";
import type { SeriesState } from "./metric-series";
import { escapeCopyText } from "./metric-stage";

/**
 * "MetricBlock": the points of one key that one ingest batch appended above every stored step of
 * the key, as one row of parallel arrays (prisma/schema.prisma). One row per key instead of one
 * per point is what lets a training run's bulk ingest cost PostgreSQL a fraction of a keyed COPY of
 * its rows (docs/architecture.md). The invariants the writer keeps:
 * - a (run, key, step) is in exactly one of "MetricRow" and "MetricBlock";
 * - a key's blocks never overlap: a block is only made of steps above the key's highest stored
 *   step ("MetricSeries".maxStep), and before a step at or below it is written, every block of the
 *   key whose range meets that step is moved into "MetricRow" ({@link explodeBlocksSql}), where
 *   `ON CONFLICT` finds and replaces the step as before.
 */

/** A key's step range [lo, hi] in run `runId` whose blocks must become rows before the batch's points are merged. */
export interface StepRange {
  runId: number;
  key: string;
  lo: bigint;
  hi: bigint;
}

/**
 * Points per block at most: a bigger batch of one key is cut into several blocks. 300 points
 * (24 bytes each) and a 200-character key fit the table's `toast_tuple_target` of 8,160 bytes
 * (migration metric_blocks), so a block is stored inline and never compressed: pglz compression of
 * 100-point blocks was 21 % of PostgreSQL's CPU during ingest (perf, docs/architecture.md).
 */
export const BLOCK_MAX_POINTS = 300;

/**
 * Per key of `points`, the range of its steps at or below the key's highest stored step (`stored`;
 * a key without a row has no points and so no range): the steps that may already be stored.
 */
export function storedRanges(runId: number, points: PointColumns, stored: ReadonlyMap<string, SeriesState> | undefined): StepRange[] {
  if (!stored) return [];
  const ranges = new Map<string, StepRange>();
  for (let i = 0; i < points.key.length; i++) {
    const key = points.key[i]!;
    const step = points.step[i]!;
    const max = stored.get(key)?.maxStep;
    if (max === undefined || step > max) continue;
    const r = ranges.get(key);
    if (!r) ranges.set(key, { runId, key, lo: step, hi: step });
    else if (step < r.lo) r.lo = step;
    else if (step > r.hi) r.hi = step;
  }
  return [...ranges.values()];
}

/**
 * Moves every block meeting one of `ranges` into "MetricRow", point by point (same step, value and
 * time), in one statement. Must run inside the ingest transaction, before the points of those
 * ranges are merged. @throws whatever PostgreSQL raises.
 */
export async function explodeBlocks(client: pg.PoolClient, ranges: readonly StepRange[]): Promise<void> {
  if (!ranges.length) return;
  await client.query(explodeBlocksSql, [ranges.map((r) => r.runId), ranges.map((r) => r.key), ranges.map((r) => r.lo.toString()), ranges.map((r) => r.hi.toString())]);
}

/** $1 run ids, $2 keys, $3 lowest steps, $4 highest steps (one range per index); a block meeting several ranges is deleted (and moved) once. */
const explodeBlocksSql = `WITH gone AS (
    DELETE FROM "MetricBlock" b USING unnest($1::int4[], $2::text[], $3::int8[], $4::int8[]) AS r("runId", key, lo, hi)
     WHERE b."runId" = r."runId" AND b.key = r.key AND b."firstStep" <= r.hi AND b."lastStep" >= r.lo
    RETURNING b."runId", b.key, b.steps, b."values", b."tsMs")
  INSERT INTO "MetricRow" ("runId", key, step, value, ts)
  SELECT g."runId", g.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
    FROM gone g CROSS JOIN LATERAL unnest(g.steps, g."values", g."tsMs") AS p(step, value, ms)`;

/**
 * COPY text-format lines for "MetricBlock" (`runId \t key \t firstStep \t lastStep \t {steps} \t
 * {values} \t {tsMs}`) holding every point of `points`: per key one block in step order (cut
 * every {@link BLOCK_MAX_POINTS}), `ts[i]` the point's epoch ms or undefined for `atMs`. The
 * points must be distinct by (key, step) and above the key's stored steps. Values are written as
 * JavaScript prints them (shortest round trip; NaN, Infinity, -Infinity as PostgreSQL reads them).
 */
export function blockLines(runId: number, points: PointColumns, ts: ReadonlyArray<number | undefined>, atMs: number): string[] {
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < points.key.length; i++) {
    const k = points.key[i]!;
    const list = byKey.get(k);
    if (list) list.push(i);
    else byKey.set(k, [i]);
  }
  const lines: string[] = [];
  for (const [key, all] of byKey) {
    if (!ascending(all, points.step)) all.sort((a, b) => (points.step[a]! < points.step[b]! ? -1 : 1));
    const prefix = `${runId}\t${escapeCopyText(key)}\t`;
    for (let from = 0; from < all.length; from += BLOCK_MAX_POINTS) {
      const idx = all.slice(from, from + BLOCK_MAX_POINTS);
      let steps = "";
      let values = "";
      let times = "";
      for (const i of idx) {
        const sep = steps ? "," : "";
        steps += sep + points.step[i]!;
        values += sep + points.value[i]!;
        times += sep + (ts[i] ?? atMs);
      }
      lines.push(`${prefix}${points.step[idx[0]!]}\t${points.step[idx[idx.length - 1]!]}\t{${steps}}\t{${values}}\t{${times}}\n`);
    }
  }
  return lines;
}

function ascending(idx: readonly number[], step: readonly bigint[]): boolean {
  for (let j = 1; j < idx.length; j++) if (step[idx[j]!]! <= step[idx[j - 1]!]!) return false;
  return true;
}
