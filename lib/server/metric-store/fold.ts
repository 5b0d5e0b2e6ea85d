import { performance } from "node:perf_hooks";
import type pg from "pg";

import { quietClientErrors } from "@/lib/server/database/transaction";
import { ingestTrace } from "@/lib/server/ingest-trace";
import type { Logger } from "@/lib/server/logger";

import { COPY_MIN_POINTS, writeMetricPoints } from "./append";
import type { RaisedAlert } from "./overflow";
import { takePending } from "./pending";
import { lockStoreRuns, tryLockStoreRuns } from "./store-lock";

/**
 * The fold (README.md here): moves "MetricPending" rows into rows/blocks, "MetricSeries",
 * "MetricTier" and "MetricNonFinite" through the same writer as a large ingest batch
 * (writeMetricPoints), in the rows' id order, and deletes them, in ONE transaction holding the
 * runs' store locks (store-lock.ts: the lock a direct write of a large batch takes too, so they
 * never interleave; ingest's appends of pending rows do not wait for it).
 * Idempotent by construction: a row is either still pending or folded and gone, never both, and a
 * crash mid-fold rolls back to "still pending"; the next fold (the loop's first tick on boot) takes
 * it again.
 */

/** Pending rows taken per fold transaction (a prefix in id order; the loop goes on while it is full). */
const FOLD_MAX_ROWS = 4_000;

/** Runs considered per fold transaction. */
const FOLD_MAX_RUNS = 1_000;

/** Runs per transaction of a whole-store settle (graceful stop, tests): its store locks stay few. */
const SETTLE_MAX_RUNS = 256;

/**
 * Runs per transaction of the background loop (it goes on while a fold takes this many). When
 * the fold held its runs' row locks, an ingest group that wrote to one of them waited for it with
 * every other socket's frames (~25 runs at once stalled whole groups 50-100 ms under load,
 * docs/benchmarks.md "fleet"); it now holds their store locks only (store-lock.ts), which only a
 * large batch's direct write waits for. Small folds still keep that wait and each transaction short.
 */
const FOLD_LOOP_MAX_RUNS = 8;

/**
 * The loop folds a run once its pending points would make blocks (COPY_MIN_POINTS: one row of
 * arrays per key, and one tier and series write per key and bucket instead of one per point),
 * or once its oldest pending batch is this old. Readers never wait for it (they fold the runs they
 * read, settle-read.ts); it bounds how much the view and a reader's fold carry. At 1 Hz a 30-key
 * run reaches 256 points in 9 s; a run of fewer keys is folded as rows after this age.
 */
export const FOLD_MAX_AGE_MS = 10_000;

interface FoldScope {
  /** Only these runs (default: any run with pending rows, up to FOLD_MAX_RUNS). */
  runIds?: readonly number[];
  /** Wait for runs locked by an ingest transaction (settle) instead of skipping them (the loop). */
  wait: boolean;
  /** Only runs that are due (the loop): enough points for blocks, or an old enough batch. */
  due?: boolean;
  /** Runs considered (default FOLD_MAX_RUNS). */
  maxRuns?: number;
}

/** What one fold transaction did: pending rows folded, and runs it considered. */
interface FoldResult {
  rows: number;
  candidates: number;
}

/**
 * One fold transaction over `scope`; returns how many pending rows it folded (0: nothing pending
 * or every such run was locked and skipped). Alerts of wrapped step counters (overflow.ts) become
 * run events in the same transaction.
 * @throws whatever PostgreSQL raises; nothing is committed then.
 */
async function foldOnce(pool: pg.Pool, scope: FoldScope): Promise<FoldResult> {
  const trace = ingestTrace();
  const startMs = trace ? performance.now() : 0;
  const marks: Array<[string, number]> = [];
  const mark = trace ? (name: string) => marks.push([name, performance.now()]) : () => undefined;
  const client = await pool.connect();
  mark("connect");
  // The loop runs every 250 ms: a database stop between two of its queries must not be uncaught.
  const unquiet = quietClientErrors(client);
  try {
    await client.query("BEGIN");
    const candidates =
      scope.runIds ??
      (
        await client.query<{ runId: number }>(
          scope.due
            ? `SELECT "runId" FROM "MetricPending" GROUP BY "runId"
                HAVING sum(cardinality(keys)) >= ${COPY_MIN_POINTS} OR min(at) < now() - interval '${FOLD_MAX_AGE_MS} milliseconds'
                LIMIT ${scope.maxRuns ?? FOLD_MAX_RUNS}`
            : `SELECT DISTINCT "runId" FROM "MetricPending" LIMIT ${scope.maxRuns ?? FOLD_MAX_RUNS}`,
        )
      ).rows.map((r) => r.runId);
    mark("candidates");
    if (candidates.length === 0) {
      await client.query("COMMIT");
      return { rows: 0, candidates: 0 };
    }
    // The runs' store locks (store-lock.ts), not their row locks: an ingest group that appends
    // pending rows of a run being folded does not wait for the fold (a fold merging a restarted
    // worker's 50 re-sent steps takes 100+ ms under load, and a group holds every socket's
    // frames). The loop skips runs another fold or a direct write holds; settle waits for them.
    const storeLocked = scope.wait
      ? (await lockStoreRuns(client, candidates), [...new Set(candidates)].sort((a, b) => a - b))
      : await tryLockStoreRuns(client, candidates);
    // FOR KEY SHARE: the runs cannot be deleted meanwhile (it does not conflict with ingest's
    // FOR NO KEY UPDATE); a run deleted already is left out.
    const locked = await client.query<{ id: number }>(
      `SELECT id FROM "Run" WHERE id = ANY($1::int4[]) ORDER BY id FOR KEY SHARE`,
      [storeLocked],
    );
    mark("lock");
    const frames = await takePending(
      client,
      locked.rows.map((r) => r.id),
      FOLD_MAX_ROWS,
    );
    mark("take");
    if (frames.length > 0) {
      // Every folded point carries its time (pending.ts), so the batch time is never used.
      const alerts = await writeMetricPoints(client, frames, new Date());
      await insertAlerts(client, alerts);
    }
    mark("write");
    await client.query("COMMIT");
    trace?.fold(startMs, performance.now(), locked.rows.length, frames.length, marks);
    return { rows: frames.length, candidates: candidates.length };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    unquiet();
    client.release();
  }
}

/** Stores alerts raised by a fold as run events (what ingest's insertEvents writes for them). */
async function insertAlerts(client: pg.PoolClient, alerts: readonly RaisedAlert[]): Promise<void> {
  if (alerts.length === 0) return;
  await client.query(
    `INSERT INTO "RunEvent" ("runId", level, message, code, ts)
     SELECT "runId", level, message, code, now() FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY
       AS e("runId", level, message, code, n) ORDER BY n`,
    [
      alerts.map((a) => a.runId),
      alerts.map((a) => a.level),
      alerts.map((a) => a.message),
      alerts.map((a) => a.code),
    ],
  );
}

/** Deadlock or serialization failure: nothing was committed, the fold is simply tried again. */
function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "40P01" || code === "40001";
}

/**
 * Folds every point pending for run `runId` (or, without it, for every run) before returning,
 * waiting for ingest transactions that hold those runs: after it, the store's tables hold
 * everything acked before the call (tests that read the tables by SQL call it first; readers go
 * through settleRuns). Safe alongside the background fold and other instances.
 * @throws whatever PostgreSQL raises (deadlocks are retried).
 */
export async function settle(pool: pg.Pool, runId?: number): Promise<void> {
  if (runId !== undefined) return settleRuns(pool, [runId]);
  // Until a fold finds nothing: one fold considers at most SETTLE_MAX_RUNS runs (each an
  // advisory lock in the shared lock table until COMMIT, store-lock.ts).
  await retryConflicts(async () => {
    while ((await foldOnce(pool, { wait: true, maxRuns: SETTLE_MAX_RUNS })).rows > 0);
  });
}

/**
 * Folds the pending points of `runIds` (those that have any), waiting for their locks: after
 * it, every point acked before the call is in the store's tables. @throws whatever PostgreSQL raises.
 */
export async function settleRuns(pool: pg.Pool, runIds: readonly number[]): Promise<void> {
  if (runIds.length === 0) return;
  // A fold under the runs' locks takes every row committed before it, unless capped.
  await retryConflicts(async () => {
    while ((await foldOnce(pool, { runIds, wait: true })).rows >= FOLD_MAX_ROWS);
  });
}

async function retryConflicts(fold: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fold();
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** The background fold of one process: `stop()` waits for a fold in flight, then folds what is left. */
export interface MetricFoldLoop {
  /** Stops the timer and settles everything pending (graceful shutdown, before the pool closes). */
  stop(): Promise<void>;
}

/**
 * Starts the background fold: every `intervalMs` (and at once, which resumes a fold interrupted by
 * a crash) one fold of the runs that are due ({@link FOLD_MAX_AGE_MS}) and that no ingest
 * transaction holds, repeated while it finds full batches.
 * Single-flight: a tick never starts while the previous one runs. Errors are logged; the next tick
 * tries again (the pending rows stay committed meanwhile).
 */
export function startMetricFold(pool: pg.Pool, log: Logger, intervalMs = 250): MetricFoldLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  // The first pass folds every pending row (what a crash or a stop left behind), later ones the due runs.
  let due = false;
  const tick = async () => {
    try {
      // Small folds (FOLD_LOOP_MAX_RUNS), repeated while one is full and folded something (a
      // fold that only met locked runs stops: they are tried again at the next tick).
      while (!stopped) {
        const { rows, candidates } = await foldOnce(pool, {
          wait: false,
          due,
          maxRuns: FOLD_LOOP_MAX_RUNS,
        });
        if (rows < FOLD_MAX_ROWS && (rows === 0 || candidates < FOLD_LOOP_MAX_RUNS)) break;
      }
      due = true;
    } catch (err) {
      if (isConflict(err)) return;
      // One run whose points the writer refuses must not hold back every other run's.
      log.warn({ err }, "metric fold failed; folding run by run");
      await foldEachRun(pool, log).catch((e: unknown) =>
        log.warn({ err: e }, "metric fold failed"),
      );
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick().finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  inFlight = tick().finally(schedule);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      await settle(pool).catch((err: unknown) => log.warn({ err }, "final metric fold failed"));
    },
  };
}

/** Folds each run with pending rows in its own transaction, logging (not throwing) a run that fails. */
async function foldEachRun(pool: pg.Pool, log: Logger): Promise<void> {
  const runs = await pool.query<{ runId: number }>(`SELECT DISTINCT "runId" FROM "MetricPending"`);
  for (const { runId } of runs.rows) {
    try {
      await foldOnce(pool, { runIds: [runId], wait: false });
    } catch (err) {
      if (!isConflict(err))
        log.error({ err, runId }, "metric fold of a run failed; its points stay pending");
    }
  }
}
