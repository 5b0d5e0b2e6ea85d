import type pg from "pg";
import type { z } from "zod";

import type { metricPoint } from "@/lib/protocol";
import { binaryArray } from "@/lib/server/database/binary-array";

import type { MetricFrame } from "./write-types";

type MetricPoint = z.infer<typeof metricPoint>;

/**
 * The recent-frame table "MetricPending" (README.md here): small batches of `run.metrics` points
 * written by the ingest transaction as ONE row per run and batch (parallel arrays `keys`, `steps`,
 * `values`; `tsMs` the points' own times in epoch ms, NaN where a point had none, or empty when
 * no point had one: then every point takes the row's `at`), later folded into rows/blocks,
 * series and tiers (fold.ts). Rows of one run are folded in `id` order: the sequence hands ids out
 * at INSERT, and the run's row lock (held by every ingest transaction that appends them) orders
 * those transactions; a fold (under the run's store lock, store-lock.ts) takes only rows committed
 * before it, which precede any a concurrent ingest transaction adds.
 */

/** One run's points of a batch, as the frames' validated arrays (in arrival order). */
export interface PendingRun {
  runId: number;
  lists: ReadonlyArray<readonly MetricPoint[]>;
}

/**
 * Inserts one "MetricPending" row per run of `runs` (points without `ts` take `at`), in ONE
 * statement of a fixed text (flat arrays sliced per run), inside the caller's transaction.
 * @throws what PostgreSQL raises for bad data (e.g. 22021 for a NUL in a key); the caller rolls back.
 */
export async function appendPending(
  client: pg.PoolClient,
  runs: readonly PendingRun[],
  at: Date,
): Promise<void> {
  const keys: string[] = [];
  const steps: Array<number | bigint> = [];
  const values: number[] = [];
  const tsMs: number[] = [];
  const ids: number[] = [];
  const los: number[] = [];
  const his: number[] = [];
  const timed: number[] = [];
  for (const run of runs) {
    const lo = keys.length + 1;
    let anyTs = false;
    for (const points of run.lists)
      for (const p of points) {
        keys.push(p.key);
        // Validated as a safe integer or a signed 64-bit decimal string (lib/protocol).
        steps.push(typeof p.step === "string" ? BigInt(p.step) : p.step);
        values.push(p.value);
        if (p.ts === undefined) tsMs.push(NaN);
        else {
          tsMs.push(p.ts);
          anyTs = true;
        }
      }
    ids.push(run.runId);
    los.push(lo);
    his.push(keys.length);
    timed.push(anyTs ? 1 : 0);
  }
  // Binary array parameters (lib/server/database/binary-array.ts): no per-value text encoding.
  await client.query(appendSql, [
    at,
    binaryArray("text", keys),
    binaryArray("int8", steps),
    binaryArray("float8", values),
    binaryArray("float8", tsMs),
    binaryArray("int4", ids),
    binaryArray("int4", los),
    binaryArray("int4", his),
    binaryArray("int4", timed),
  ]);
}

const appendSql = `INSERT INTO "MetricPending" ("runId", at, keys, steps, "values", "tsMs")
  SELECT r.id, $1::timestamptz, ($2::text[])[r.lo:r.hi], ($3::int8[])[r.lo:r.hi], ($4::float8[])[r.lo:r.hi],
         CASE WHEN r.timed = 1 THEN ($5::float8[])[r.lo:r.hi] ELSE '{}'::float8[] END
    FROM unnest($6::int4[], $7::int4[], $8::int4[], $9::int4[]) AS r(id, lo, hi, timed)`;

/**
 * Deletes and returns every "MetricPending" row of `runIds` (at most `limit` rows, lowest ids
 * first: a prefix of each run's batches), as frames in id order, each point with its own time
 * (the row's `at` when it had none). The caller must hold the runs' store locks (store-lock.ts:
 * no other fold or direct write takes them meanwhile; rows an ingest transaction has inserted but
 * not committed are not seen and come after every row taken) and write the frames in the same
 * transaction: a rollback puts the rows back.
 */
export async function takePending(
  client: pg.PoolClient,
  runIds: readonly number[],
  limit = 1_000_000,
): Promise<MetricFrame[]> {
  if (runIds.length === 0) return [];
  const res = await client.query<PendingText>(takeSql, [runIds, limit]);
  const rows = res.rows.sort((a, b) => compareDecimal(a.id, b.id));
  return rows.map((r) => ({ runId: r.runId, points: pointsOf(r) }));
}

/**
 * The arrays come back as text that V8 splits or parses natively: `keys` as a JSON array, the
 * numbers joined by commas (int8 and float8 print without commas; float8 prints its shortest exact
 * form and `NaN`, `Infinity`, `-Infinity`, which Number() reads). node-pg's own array parser
 * walked every character in JS: ~9 % of the server's CPU under the fleet bench (docs/benchmarks.md).
 */
const takeSql = `DELETE FROM "MetricPending" WHERE id IN (
    SELECT id FROM "MetricPending" WHERE "runId" = ANY($1::int4[]) ORDER BY id LIMIT $2)
  RETURNING id::text AS id, "runId", (extract(epoch FROM at) * 1000)::float8 AS "atMs",
            array_to_json(keys)::text AS keys, array_to_string(steps, ',') AS steps,
            array_to_string("values", ',') AS "values", array_to_string("tsMs", ',') AS "tsMs"`;

/** A taken row as takeSql returns it. */
interface PendingText {
  id: string;
  runId: number;
  atMs: number;
  keys: string;
  steps: string;
  values: string;
  tsMs: string;
}

function pointsOf(r: PendingText): MetricPoint[] {
  const keys = JSON.parse(r.keys) as string[];
  const steps = r.steps.split(",");
  const values = r.values.split(",");
  const tsMs = r.tsMs === "" ? null : r.tsMs.split(",");
  const out: MetricPoint[] = new Array<MetricPoint>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const own = tsMs ? Number(tsMs[i]) : NaN;
    out[i] = {
      key: keys[i]!,
      step: steps[i]!,
      value: Number(values[i]),
      ts: Number.isNaN(own) ? r.atMs : own,
    };
  }
  return out;
}

/** Orders two non-negative decimal integers given as text (bigserial ids). */
function compareDecimal(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
