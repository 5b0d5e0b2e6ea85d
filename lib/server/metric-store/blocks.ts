import type pg from "pg";

import type { PointColumns } from "@/lib/metrics/tiers";

import type { SeriesState } from "./series";

/**
 * "MetricBlock": the points of one key that one ingest batch appended above every stored step of
 * the key, as one row of parallel arrays (prisma/schema.prisma). One row per key instead of one
 * per point is what lets a training run's bulk ingest cost PostgreSQL a fraction of a keyed COPY of
 * its rows (docs/decisions.md). The invariants the writer keeps:
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
 * 100-point blocks was 21 % of PostgreSQL's CPU during ingest (perf, docs/benchmarks.md).
 */
export const BLOCK_MAX_POINTS = 300;

/**
 * Per key of `points`, the range of its steps at or below the key's highest stored step (`stored`;
 * a key without a row has no points and so no range): the steps that may already be stored.
 */
export function storedRanges(
  runId: number,
  points: PointColumns,
  stored: ReadonlyMap<string, SeriesState> | undefined,
): StepRange[] {
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
export async function explodeBlocks(
  client: pg.PoolClient,
  ranges: readonly StepRange[],
): Promise<void> {
  if (!ranges.length) return;
  await client.query(explodeBlocksSql, [
    ranges.map((r) => r.runId),
    ranges.map((r) => r.key),
    ranges.map((r) => r.lo.toString()),
    ranges.map((r) => r.hi.toString()),
  ]);
}

/**
 * $1 run ids, $2 keys, $3 lowest steps, $4 highest steps (one range per index); a block meeting
 * several ranges is deleted (and moved) once. The blocks meeting a range are one primary-key
 * range: from the last block starting at or before its lowest step (blocks never overlap).
 */
const explodeBlocksSql = `WITH gone AS (
    DELETE FROM "MetricBlock" b USING unnest($1::int4[], $2::text[], $3::int8[], $4::int8[]) AS r("runId", key, lo, hi)
     WHERE b."runId" = r."runId" AND b.key = r.key AND b."lastStep" >= r.lo
       AND b."firstStep" BETWEEN coalesce((SELECT f."firstStep" FROM "MetricBlock" f
                                            WHERE f."runId" = r."runId" AND f.key = r.key AND f."firstStep" <= r.lo
                                            ORDER BY f."firstStep" DESC LIMIT 1), r.lo) AND r.hi
    RETURNING b."runId", b.key, b.steps, b."values", b."tsMs")
  INSERT INTO "MetricRow" ("runId", key, step, value, ts)
  SELECT g."runId", g.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
    FROM gone g CROSS JOIN LATERAL unnest(g.steps, g."values", g."tsMs") AS p(step, value, ms)`;

/**
 * The rows of "MetricBlock" for a batch, in COPY's binary format (`COPY … FROM STDIN (FORMAT
 * binary)`; PostgreSQL 18 documentation, "COPY", Binary Format), written straight into buffers:
 * steps, values and times go as 8-byte big-endian integers and doubles, so no number is turned
 * into decimal text here nor parsed back by PostgreSQL (formatting the doubles was most of the
 * text encoder's cost). {@link add} appends every point of a run's batch: per key one block in
 * step order (cut every {@link BLOCK_MAX_POINTS}); {@link toBuffer} returns the whole COPY stream.
 * Each block row: `runId` int4, `key` text (UTF-8), `firstStep`/`lastStep` int8, then `steps`
 * int8[], `values` float8[] and `tsMs` int8[] in array_send's format.
 */
export class BlockCopy {
  private readonly parts: Buffer[] = [COPY_HEADER];
  /** Block rows added so far. */
  blocks = 0;

  /**
   * Adds every point of `points` for run `runId`; `ts[i]` is the point's epoch ms or undefined for
   * `atMs`. The points must be distinct by (key, step) and above the key's stored steps.
   * @throws RangeError for a step outside int8 (validated input never has one).
   */
  add(
    runId: number,
    points: PointColumns,
    ts: ReadonlyArray<number | undefined>,
    atMs: number,
  ): void {
    const byKey = new Map<string, number[]>();
    for (let i = 0; i < points.key.length; i++) {
      const k = points.key[i]!;
      const list = byKey.get(k);
      if (list) list.push(i);
      else byKey.set(k, [i]);
    }
    for (const [key, all] of byKey) {
      if (!ascending(all, points.step))
        all.sort((a, b) => (points.step[a]! < points.step[b]! ? -1 : 1));
      const keyBytes = Buffer.byteLength(key, "utf8");
      for (let from = 0; from < all.length; from += BLOCK_MAX_POINTS) {
        const n = Math.min(BLOCK_MAX_POINTS, all.length - from);
        // Field count, then (length, bytes) per field: int4, text, 2 × int8, 3 arrays of n 8-byte elements.
        const buf = Buffer.allocUnsafe(
          2 + 8 + 4 + keyBytes + 2 * 12 + 3 * (4 + ARRAY_HEADER_BYTES + 12 * n),
        );
        const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        v.setInt16(0, 7);
        v.setInt32(2, 4);
        v.setInt32(6, runId);
        v.setInt32(10, keyBytes);
        buf.write(key, 14, "utf8");
        let at = 14 + keyBytes;
        v.setInt32(at, 8);
        v.setBigInt64(at + 4, points.step[all[from]!]!);
        v.setInt32(at + 12, 8);
        v.setBigInt64(at + 16, points.step[all[from + n - 1]!]!);
        at += 24;
        at = arrayHeader(v, at, INT8_OID, n);
        for (let j = from; j < from + n; j++) {
          v.setInt32(at, 8);
          v.setBigInt64(at + 4, points.step[all[j]!]!);
          at += 12;
        }
        at = arrayHeader(v, at, FLOAT8_OID, n);
        for (let j = from; j < from + n; j++) {
          v.setInt32(at, 8);
          v.setFloat64(at + 4, points.value[all[j]!]! + 0); // + 0: -0 as 0, as its text "0" was
          at += 12;
        }
        at = arrayHeader(v, at, INT8_OID, n);
        for (let j = from; j < from + n; j++) {
          const ms = ts[all[j]!] ?? atMs;
          // Epoch ms of the protocol's time window fit 2^53: high and low 32 bits without a BigInt.
          const hi = Math.floor(ms / TWO_32);
          v.setInt32(at, 8);
          v.setInt32(at + 4, hi);
          v.setUint32(at + 8, ms - hi * TWO_32);
          at += 12;
        }
        this.parts.push(buf);
        this.blocks++;
      }
    }
  }

  /** The COPY stream: header, every block row, trailer. */
  toBuffer(): Buffer {
    return Buffer.concat([...this.parts, COPY_TRAILER]);
  }
}

/** Signature, flags (none) and header extension length (0) of a binary COPY stream. */
const COPY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
/** Field count -1: end of the stream. */
const COPY_TRAILER = Buffer.from([0xff, 0xff]);
const INT8_OID = 20;
const FLOAT8_OID = 701;
const TWO_32 = 2 ** 32;
/** array_send's header of a one-dimensional array without NULLs: dimensions, has-null flag, element type, length, lower bound. */
const ARRAY_HEADER_BYTES = 20;

/** Writes an array field's length and header for `n` 8-byte elements at `at`; returns where its elements start. */
function arrayHeader(v: DataView, at: number, oid: number, n: number): number {
  v.setInt32(at, ARRAY_HEADER_BYTES + 12 * n);
  v.setInt32(at + 4, 1);
  v.setInt32(at + 8, 0);
  v.setInt32(at + 12, oid);
  v.setInt32(at + 16, n);
  v.setInt32(at + 20, 1);
  return at + 4 + ARRAY_HEADER_BYTES;
}

function ascending(idx: readonly number[], step: readonly bigint[]): boolean {
  for (let j = 1; j < idx.length; j++) if (step[idx[j]!]! <= step[idx[j - 1]!]!) return false;
  return true;
}
