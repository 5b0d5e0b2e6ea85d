import type pg from "pg";

import { columnsOf, copyTextOf, PointCols, type MetricPoint, type RunBatch } from "./batch-columns";
import { BlockCopy, explodeBlocks, storedRanges, type StepRange } from "./blocks";
import { overflowAlerts, type RaisedAlert } from "./overflow";
import { appendPending, takePending, type PendingRun } from "./pending";
import {
  advanceSeries,
  readSeries,
  seriesUpsertSql,
  topBitsAfter,
  type SeriesStates,
} from "./series";
import { copyBlocks, copyRows, STAGE_TABLE } from "./stage";
import { lockStoreRuns } from "./store-lock";
import { nonFiniteUpsertSql, pointId, promoteTiers, repairReplaced, tierMergeSql } from "./tiers";
import type { MetricFrame } from "./write-types";

export type { RaisedAlert } from "./overflow";
export type { MetricFrame } from "./write-types";

/**
 * Stores a group commit's `run.metrics` frames, in the ingest transaction (the caller holds the
 * runs' row locks): a run with fewer than COPY_MIN_POINTS points in the batch (a fleet's step
 * frames), or a larger one that re-sends a stored step (a restarted worker's last steps), gets ONE
 * row in the recent-frame table "MetricPending" (pending.ts; all such runs in one statement),
 * folded into the tables below in the background (fold.ts); a larger run appending above its
 * stored steps is written at once by {@link writeMetricPoints} under the run's store lock
 * (store-lock.ts), after the run's pending rows (taken and deleted in this transaction, so a run's
 * writes stay in order). Returns alerts for steps that jumped back
 * by ~2^32 (a wrapped 32-bit counter) among the points written now; pending points raise theirs
 * when folded (as run events written by the fold).
 * @throws whatever PostgreSQL raises (e.g. 22021 for a NUL in a key); the caller rolls back.
 */
export async function upsertMetricPoints(
  client: pg.PoolClient,
  frames: readonly MetricFrame[],
  at: Date,
): Promise<RaisedAlert[]> {
  const byRun = listsByRun(frames);
  const small: PendingRun[] = [];
  const large: number[] = [];
  for (const [runId, lists] of byRun) {
    let n = 0;
    for (const l of lists) n += l.length;
    if (n < COPY_MIN_POINTS) small.push({ runId, lists });
    else large.push(runId);
  }
  let direct = large;
  if (large.length) {
    // The fold may be writing these runs (store-lock.ts): wait for it, then no other writer can.
    await lockStoreRuns(client, large);
    // A large batch that re-sends stored steps (a restarted worker's last 50 steps) would be
    // merged here (blocks exploded into rows, ON CONFLICT, buckets repaired: 100+ ms under load,
    // most of a fleet's ack p99, docs/benchmarks.md "Issue 22"): it goes to the pending table
    // like a small one and the fold merges it. Only batches appending above every stored step
    // (the cheap COPY of blocks) are written now.
    const resent = new Set(await runsResendingStoredSteps(client, large, byRun));
    if (resent.size) {
      small.push(
        ...large
          .filter((id) => resent.has(id))
          .map((runId) => ({ runId, lists: byRun.get(runId)! })),
      );
      direct = large.filter((id) => !resent.has(id));
    }
  }
  if (small.length) await appendPending(client, small, at);
  if (!direct.length) return [];
  const earlier = await takePending(client, direct);
  const now = direct.flatMap((runId) => byRun.get(runId)!.map((points) => ({ runId, points })));
  return writeMetricPoints(client, [...earlier, ...now], at);
}

/**
 * The runs of `runIds` whose batch holds a point at or below its key's highest stored step
 * ("MetricSeries", read under the runs' store locks). @throws whatever PostgreSQL raises.
 */
async function runsResendingStoredSteps(
  client: pg.PoolClient,
  runIds: readonly number[],
  byRun: ReadonlyMap<number, Array<readonly MetricPoint[]>>,
): Promise<number[]> {
  const runs: number[] = [];
  const keys: string[] = [];
  const minSteps: string[] = [];
  for (const runId of runIds) {
    const min = new Map<string, bigint>();
    for (const list of byRun.get(runId)!)
      for (const p of list) {
        const step = BigInt(p.step);
        const m = min.get(p.key);
        if (m === undefined || step < m) min.set(p.key, step);
      }
    for (const [key, step] of min) {
      runs.push(runId);
      keys.push(key);
      minSteps.push(step.toString());
    }
  }
  const res = await client.query<{ runId: number }>(
    `SELECT DISTINCT s."runId" FROM unnest($1::int4[], $2::text[], $3::int8[]) AS b("runId", key, step)
       JOIN "MetricSeries" s ON s."runId" = b."runId" AND s.key = b.key AND s."maxStep" >= b.step`,
    [runs, keys, minSteps],
  );
  return res.rows.map((r) => r.runId);
}

function listsByRun(frames: readonly MetricFrame[]): Map<number, Array<readonly MetricPoint[]>> {
  const byRun = new Map<number, Array<readonly MetricPoint[]>>();
  for (const f of frames) {
    const list = byRun.get(f.runId);
    if (list) list.push(f.points);
    else byRun.set(f.runId, [f.points]);
  }
  return byRun;
}

/**
 * Writes metric points by (run, key, step) into the folded tables (ingest's large batches and the
 * fold, fold.ts): a re-sent step replaces the old value (a resumed
 * attempt wins; within the batch the latest occurrence wins); out-of-order steps are simply
 * stored. Points live in "MetricBlock" (a key's points appended in bulk, one row of arrays) or
 * "MetricRow" (one row per point), read together as the view "MetricPoint" (blocks.ts).
 * Round trips per batch, whatever the number of runs in it (a group commit carries the frames of
 * up to hundreds of sockets, apply.ts):
 * 1. The "MetricSeries" rows of the batch's (run, key) pairs are read (series.ts): the
 *    highest steps for the step-overflow check and the storage decision, the top tiers for the
 *    merge. (Rare: when a key's step range widens past its top tier, the tiers it gains are filled.)
 * 2. Rare: the blocks that may hold a step of the batch (one at or below its key's highest stored
 *    step: a resumed attempt, an out-of-order point) are moved into "MetricRow" first, in one
 *    statement for the batch.
 * 3. ONE statement of data-modifying CTEs for every run of the batch writes the advanced series
 *    rows, merges the batch's summaries into "MetricTier" (the tiers up to each key's top tier:
 *    one to ~7 rows per key and bucket instead of 15) and upserts its NaN/±Infinity points into
 *    "MetricNonFinite" (tiers.ts); the points of runs with fewer than COPY_MIN_POINTS in
 *    the batch go into "MetricRow" in it too, from `unnest` of bound arrays: those above their
 *    key's highest stored step by a plain INSERT (they cannot exist), the others merged with
 *    `ON CONFLICT`, and the steps that merge replaced come back.
 * 4. The points of the larger runs: when every step of such a run is above its key's stored
 *    highest step (a training run appending: the normal case), they are COPYed as blocks, one row
 *    per key (blocks.ts), all such runs in ONE COPY: no staging table, no `ON CONFLICT`
 *    probe, no per-point row. Otherwise (rare) that run's points are COPYed into the staging
 *    table and merged into "MetricRow" with `ON CONFLICT DO UPDATE`, which reports the steps it
 *    replaced.
 * 5. Buckets holding a replaced step are recomputed (rare; tiers.ts).
 * The runs' store locks are held by the caller (store-lock.ts: the fold, or upsertMetricPoints),
 * so batches of one run never interleave, and
 * "MetricSeries" never holds a lower step than "MetricPoint" for its (run, key) (every writer of
 * points raises it in the same statement or, for rows loaded by SQL, `rebuildRunTiers`; deleting
 * points only makes the check conservative), which is what makes blocks safe.
 * Points without `ts` get `at`. The hot path allocates per batch, not per point object (columns,
 * one binary COPY row per block). Returns alerts for steps that jumped back by ~2^32 (a wrapped 32-bit
 * counter).
 * @throws whatever PostgreSQL raises (e.g. 22021 for a NUL in a key); the caller rolls back.
 */
export async function writeMetricPoints(
  client: pg.PoolClient,
  frames: readonly MetricFrame[],
  at: Date,
): Promise<RaisedAlert[]> {
  const byRun = listsByRun(frames);
  const runs: RunBatch[] = [...byRun].map(([runId, lists]) => ({ runId, ...columnsOf(lists) }));
  const stored = await readSeries(client, runs);
  const { next, promotions } = advanceSeries(runs, stored);
  await promoteTiers(client, promotions);
  const alerts: RaisedAlert[] = [];
  const blocks = new BlockCopy();
  const staged: RunBatch[] = [];
  const overlaps: StepRange[] = [];
  for (const run of runs) {
    const before = stored.get(run.runId);
    alerts.push(...overflowAlerts(run.runId, run.points, before));
    const old = storedRanges(run.runId, run.points, before);
    overlaps.push(...old);
    if (run.points.key.length < COPY_MIN_POINTS) continue;
    if (old.length) staged.push(run);
    else blocks.add(run.runId, run.points, run.ts, at.getTime());
  }
  await explodeBlocks(client, overlaps);
  const topBits = (runId: number, key: string) => topBitsAfter(next, stored, runId, key);
  const small = runs.filter((r) => r.points.key.length < COPY_MIN_POINTS);
  const res = await client.query<{ runId: number; key: string; step: string }>(
    ...summaryStatement(runs, small, stored, next, topBits, at),
  );
  const replaced = new Map<number, Set<string>>();
  for (const r of res.rows) setOf(replaced, r.runId).add(pointId(r.key, BigInt(r.step)));
  if (blocks.blocks) await copyBlocks(client, blocks.toBuffer());
  for (const [i, run] of staged.entries()) {
    // An earlier run's staged rows are merged already; this run stages its own.
    await copyRows(client, copyTextOf(run.points, run.ts), i > 0);
    const merged = await client.query<{ key: string; step: string }>(stageMergeSql, [
      run.runId,
      at,
    ]);
    for (const r of merged.rows) setOf(replaced, run.runId).add(pointId(r.key, BigInt(r.step)));
  }
  for (const run of runs) {
    const steps = replaced.get(run.runId);
    if (steps)
      await repairReplaced(client, run.runId, run.points, steps, (key) => topBits(run.runId, key));
  }
  return alerts;
}

function setOf<T>(m: Map<number, Set<T>>, id: number): Set<T> {
  let v = m.get(id);
  if (!v) m.set(id, (v = new Set()));
  return v;
}

/**
 * Fewer points than this in one run's batch skip COPY: they are merged from bound arrays in the
 * batch's single statement, where COPY would add a round trip (and, on the fallback, the staging
 * table's CREATE IF NOT EXISTS and per-COMMIT truncation). Measured with the soak (200 workers,
 * 3-point frames; docs/benchmarks.md).
 */
export const COPY_MIN_POINTS = 256;

/**
 * The batch's single statement (see upsertMetricPoints): the series rows of `next`, the tier
 * summaries (up to each key's top tier) and the NaN/±Infinity copies of every run of `runs`, and
 * the `ON CONFLICT` upsert of the points of `small` from bound arrays, returning the steps that
 * upsert replaced (rows `runId`, `key`, `step`).
 */
function summaryStatement(
  runs: readonly RunBatch[],
  small: readonly RunBatch[],
  stored: SeriesStates,
  next: SeriesStates,
  topBits: (runId: number, key: string) => number,
  at: Date,
): [string, unknown[]] {
  const params: unknown[] = [];
  const ctes: string[] = [];
  const add = (name: string, part: { sql: string; params: unknown[] } | null) => {
    if (!part) return;
    ctes.push(`${name} AS (${part.sql})`);
    params.push(...part.params);
  };
  add("series", seriesUpsertSql(next, params.length + 1));
  add("tiers", tierMergeSql(runs, params.length + 1, topBits));
  add("special", nonFiniteUpsertSql(runs, params.length + 1));
  if (!small.length)
    return [
      `WITH ${ctes.join(",\n     ")}\n   SELECT 1::int4 AS "runId", ''::text AS key, ''::text AS step WHERE false`,
      params,
    ];
  // Points above their key's highest stored step ("MetricSeries".maxStep, read in this
  // transaction under the run lock) cannot exist yet: a plain INSERT, without the speculative
  // insertion of ON CONFLICT (~35 % of a row's cost, docs/benchmarks.md). The rest (a resumed
  // attempt, an out-of-order point) are merged with ON CONFLICT and report what they replaced.
  const fresh = new PointCols();
  const maybe = new PointCols();
  for (const run of small) {
    const before = stored.get(run.runId);
    const { key, step, value } = run.points;
    for (let i = 0; i < key.length; i++) {
      const max = before?.get(key[i]!)?.maxStep;
      (max === undefined || step[i]! > max ? fresh : maybe).push(
        run.runId,
        key[i]!,
        step[i]!,
        value[i]!,
        run.ts[i],
      );
    }
  }
  const n = params.length;
  params.push(at);
  const rowsOf = (c: PointCols, first: number) => {
    params.push(...c.params());
    return `SELECT "runId", key, step, value, coalesce(ts, $${n + 1}::timestamptz)
       FROM unnest($${first}::int4[], $${first + 1}::text[], $${first + 2}::int8[], $${first + 3}::float8[], $${first + 4}::timestamptz[]) AS p("runId", key, step, value, ts)`;
  };
  if (fresh.length)
    ctes.push(
      `appended AS (INSERT INTO "MetricRow" ("runId", key, step, value, ts) ${rowsOf(fresh, params.length + 1)})`,
    );
  if (!maybe.length)
    return [
      `WITH ${ctes.join(",\n     ")}\n   SELECT 1::int4 AS "runId", ''::text AS key, ''::text AS step WHERE false`,
      params,
    ];
  // xmax <> 0 marks a row the ON CONFLICT branch updated (the step existed): only those come back.
  ctes.push(`written AS (
     INSERT INTO "MetricRow" ("runId", key, step, value, ts) ${rowsOf(maybe, params.length + 1)}
     ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts
     RETURNING "runId", key, step, xmax)`);
  return [
    `WITH ${ctes.join(",\n     ")}\n   SELECT "runId", key, step::text FROM written WHERE xmax::text <> '0'`,
    params,
  ];
}

/** Merges one run's staged points ($1 the run, $2 the batch's time for points without one), returning the steps it replaced. */
const stageMergeSql = `WITH written AS (
    INSERT INTO "MetricRow" ("runId", key, step, value, ts)
    SELECT $1::int4, key, step, value, coalesce(ts, $2::timestamptz) FROM ${STAGE_TABLE}
    ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts
    RETURNING key, step, xmax)
  SELECT key, step::text FROM written WHERE xmax::text <> '0'`;
