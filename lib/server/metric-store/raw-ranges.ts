import type pg from "pg";

import type { PrismaClient } from "@/generated/prisma/client";
import { rawPoolOf } from "@/lib/server/database/raw-pool";

/** A step range (inclusive) of one key whose raw points a chart read needs. */
export interface StepRangeOfKey {
  key: string;
  lo: bigint;
  hi: bigint;
}

/** Steps as numbers (every one within ±2^53, so exact) or as bigints. */
export type StepArray = Float64Array | BigInt64Array;

/** The finite raw points of one range as parallel columns, by ascending step. */
export interface RawColumns {
  steps: StepArray;
  values: Float64Array;
}

/** Points of one block (or of a range's rows), as read. */
interface Chunk {
  steps: StepArray;
  values: Float64Array;
}

/**
 * The finite raw points (NaN/±Infinity left out: "MetricNonFinite" repeats them) of each of
 * `ranges` in run `runId`, entry i answering range i, by ascending step; ranges may overlap.
 *
 * Why not `pitwall_metric_points`: it unnests every block in SQL (and computes each point's
 * timestamp), ~4 µs per point, and the per-bucket sums chart reads did over it cost ~10 µs more.
 * Here PostgreSQL sends the blocks meeting a range as they are stored (two arrays per block, read
 * by the blocks' primary key as that function does) and the "MetricRow" points of the range as one
 * pair of arrays, each in PostgreSQL's binary array format, through the raw pool bound to `db` (lib/server/database/
 * raw-pool.ts); the points are cut to the range here. Without a bound pool it falls back to
 * the function's rows through Prisma (same answer, slower).
 * @throws whatever PostgreSQL raises.
 */
export async function readRawRanges(
  db: PrismaClient,
  runId: number,
  ranges: readonly StepRangeOfKey[],
): Promise<RawColumns[]> {
  if (ranges.length === 0) return [];
  const pool = rawPoolOf(db);
  const chunks: Chunk[][] = ranges.map(() => []);
  if (pool) await readChunksBinary(pool, runId, ranges, chunks);
  else await readChunksPrisma(db, runId, ranges, chunks);
  return chunks.map((list, i) => cutToRange(list, ranges[i]!.lo, ranges[i]!.hi));
}

/** Blocks (and the rows as one chunk) meeting each range, in the binary format. */
async function readChunksBinary(
  pool: pg.Pool,
  runId: number,
  ranges: readonly StepRangeOfKey[],
  into: Chunk[][],
): Promise<void> {
  // array_send: each array in PostgreSQL's binary format, as a bytea the driver hands over as a
  // Buffer (node-postgres decodes binary result columns as UTF-8 text, so it cannot take them
  // raw); string_agg concatenates a range's blocks into one value, so a range is one row.
  const res = await pool.query<
    [number, Buffer | null, Buffer | null, Buffer | null, Buffer | null]
  >({
    text: `
    SELECT r.i::int4, bl.steps, bl."values", rw.steps, rw."values"
      FROM unnest($2::text[], $3::int8[], $4::int8[]) WITH ORDINALITY AS r(key, lo, hi, i)
     CROSS JOIN LATERAL (
       SELECT string_agg(array_send(b.steps), ''::bytea ORDER BY b."firstStep") AS steps,
              string_agg(array_send(b."values"), ''::bytea ORDER BY b."firstStep") AS "values"
         FROM "MetricBlock" b
        WHERE b."runId" = $1 AND b.key = r.key AND b."lastStep" >= r.lo
          AND b."firstStep" BETWEEN coalesce((SELECT f."firstStep" FROM "MetricBlock" f
                                               WHERE f."runId" = $1 AND f.key = r.key AND f."firstStep" <= r.lo
                                               ORDER BY f."firstStep" DESC LIMIT 1), r.lo) AND r.hi
     ) AS bl
     CROSS JOIN LATERAL (
       SELECT array_send(array_agg(m.step ORDER BY m.step)) AS steps,
              array_send(array_agg(m.value ORDER BY m.step)) AS "values"
         FROM "MetricRow" m
        WHERE m."runId" = $1 AND m.key = r.key AND m.step BETWEEN r.lo AND r.hi
     ) AS rw`,
    values: [
      runId,
      ranges.map((r) => r.key),
      ranges.map((r) => r.lo.toString()),
      ranges.map((r) => r.hi.toString()),
    ],
    rowMode: "array",
  });
  for (const [i, blockSteps, blockValues, rowSteps, rowValues] of res.rows) {
    const list = into[i - 1]!;
    if (blockSteps && blockValues) appendArrays(list, blockSteps, blockValues);
    if (rowSteps && rowValues) appendArrays(list, rowSteps, rowValues);
  }
}

/** Appends the chunks of `steps` and `values`: the same number of binary int8[] and float8[] arrays (array_send) one after the other. */
function appendArrays(into: Chunk[], steps: Buffer, values: Buffer): void {
  let s = 0;
  let v = 0;
  while (s < steps.length) {
    const a = int8ArrayAt(steps, s);
    const b = float8ArrayAt(values, v);
    if (a.array.length !== b.array.length)
      throw new Error("metric store: a block's steps and values differ in length");
    into.push({ steps: a.array, values: b.array });
    s = a.end;
    v = b.end;
  }
}

/** The fallback without a raw pool: the points of each range through pitwall_metric_points. */
async function readChunksPrisma(
  db: PrismaClient,
  runId: number,
  ranges: readonly StepRangeOfKey[],
  into: Chunk[][],
): Promise<void> {
  const rows = await db.$queryRaw<Array<{ i: bigint | number; step: bigint; value: number }>>`
    SELECT r.i, m.step, m.value
      FROM unnest(${ranges.map((r) => r.key)}::text[], ${ranges.map((r) => r.lo.toString())}::int8[], ${ranges.map((r) => r.hi.toString())}::int8[]) WITH ORDINALITY AS r(key, lo, hi, i)
     CROSS JOIN LATERAL pitwall_metric_points(${runId}::int4, r.key, r.lo, r.hi) m
     ORDER BY r.i, m.step`;
  const byRange = new Map<number, Array<{ step: bigint; value: number }>>();
  for (const r of rows) {
    const i = Number(r.i) - 1;
    let list = byRange.get(i);
    if (!list) byRange.set(i, (list = []));
    list.push({ step: BigInt(r.step), value: r.value });
  }
  for (const [i, list] of byRange)
    into[i]!.push({
      steps: BigInt64Array.from(list, (p) => p.step),
      values: Float64Array.from(list, (p) => p.value),
    });
}

/**
 * Elements of the one-dimensional binary array (array_send) at `at` with 8-byte elements, and
 * where their bytes start; an empty array (0 dimensions) has a 12-byte header. Nulls are refused.
 */
function arrayAt(buf: Buffer, at: number): { n: number; data: number } {
  const dims = buf.readInt32BE(at);
  if (dims === 0) return { n: 0, data: at + 12 };
  if (dims !== 1 || buf.readInt32BE(at + 4) !== 0)
    throw new Error("metric store: expected a one-dimensional array without nulls");
  return { n: buf.readInt32BE(at + 12), data: at + 20 };
}

/**
 * The binary int8[] at `at`, and the offset after it: as a Float64Array when every step is within
 * ±2^53 (exact as a number; no BigInt per point), else as a BigInt64Array.
 */
function int8ArrayAt(buf: Buffer, at: number): { array: StepArray; end: number } {
  const { n, data } = arrayAt(buf, at);
  // Each element: its int32 byte length (8), then the value (high word first).
  let safe = true;
  for (let i = 0, p = data + 4; i < n; i++, p += 12) {
    const high = buf.readInt32BE(p);
    if (high >= TWO_21 || high < -TWO_21) {
      safe = false;
      break;
    }
  }
  if (safe) {
    const array = new Float64Array(n);
    for (let i = 0, p = data + 4; i < n; i++, p += 12)
      array[i] = buf.readInt32BE(p) * TWO_32 + buf.readUInt32BE(p + 4);
    return { array, end: data + n * 12 };
  }
  const array = new BigInt64Array(n);
  for (let i = 0, p = data + 4; i < n; i++, p += 12) array[i] = buf.readBigInt64BE(p);
  return { array, end: data + n * 12 };
}

const TWO_21 = 2 ** 21;
const TWO_32 = 2 ** 32;

/** The binary float8[] at `at` as a Float64Array, and the offset after it. */
function float8ArrayAt(buf: Buffer, at: number): { array: Float64Array; end: number } {
  const { n, data } = arrayAt(buf, at);
  const array = new Float64Array(n);
  let p = data + 4;
  for (let i = 0; i < n; i++, p += 12) array[i] = buf.readDoubleBE(p);
  return { array, end: data + n * 12 };
}

/** A bigint bound as a number when that is exact (comparisons of numbers with bigints are exact either way, only slower). */
function boundOf(x: bigint): number | bigint {
  return x >= -MAX_EXACT && x <= MAX_EXACT ? Number(x) : x;
}
const MAX_EXACT = 2n ** 53n;

/**
 * The finite points of `chunks` with lo <= step <= hi, by ascending step (chunks are disjoint by
 * step: a key's blocks never overlap, and a step is in a block or a row); steps as numbers when
 * every chunk holds them so, else as bigints.
 */
function cutToRange(chunks: readonly Chunk[], lo: bigint, hi: bigint): RawColumns {
  let total = 0;
  let numbers = true;
  for (const c of chunks) {
    total += c.steps.length;
    if (!(c.steps instanceof Float64Array)) numbers = false;
  }
  const from = boundOf(lo);
  const to = boundOf(hi);
  const steps: Array<number | bigint> = [];
  const values = new Float64Array(total);
  let n = 0;
  let sorted = true;
  for (const c of chunks) {
    for (let j = 0; j < c.steps.length; j++) {
      const step = c.steps[j]!;
      const value = c.values[j]!;
      if (step < from || step > to || !Number.isFinite(value)) continue;
      if (n > 0 && step < steps[n - 1]!) sorted = false;
      steps.push(step);
      values[n++] = value;
    }
  }
  let order: number[] | null = null;
  if (!sorted)
    order = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      steps[a]! < steps[b]! ? -1 : steps[a]! > steps[b]! ? 1 : 0,
    );
  const at = (i: number) => (order ? order[i]! : i);
  return {
    steps: numbers
      ? Float64Array.from({ length: n }, (_, i) => steps[at(i)] as number)
      : BigInt64Array.from({ length: n }, (_, i) => BigInt(steps[at(i)]!)),
    values: order ? Float64Array.from(order, (i) => values[i]!) : values.subarray(0, n),
  };
}
