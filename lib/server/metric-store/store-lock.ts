import type pg from "pg";

/**
 * The store lock of a run: a transaction-level advisory lock (two-int4 key space, so it never
 * meets the single-bigint locks of users.ts or baselines.ts) held by whatever writes a run's
 * points into the folded tables (rows/blocks, "MetricSeries", "MetricTier", "MetricNonFinite"):
 * the fold, and an ingest transaction that writes a large batch directly (append.ts). It is not
 * the run's row lock: an ingest transaction that only appends a "MetricPending" row does not
 * take it, so a fold never holds up a group of small frames (docs/architecture.md, "Issue 22").
 * Why that keeps a run's writes in order: pending rows of one run are still inserted under the
 * run's row lock (ingest, in commit order = id order), and a fold takes only rows committed
 * before its statement, which all precede any row a concurrent ingest transaction adds.
 */
const STORE_LOCK_SPACE = 0x4d53; // "MS"

/**
 * Takes the store locks of `runIds` in the caller's transaction, in ascending id order (the one
 * order every holder uses, so two waiters cannot deadlock), waiting for holders.
 * @throws whatever PostgreSQL raises.
 */
export async function lockStoreRuns(
  client: pg.PoolClient,
  runIds: readonly number[],
): Promise<void> {
  if (runIds.length === 0) return;
  await client.query(
    `SELECT pg_advisory_xact_lock(${STORE_LOCK_SPACE}, id)
       FROM (SELECT DISTINCT unnest($1::int4[]) AS id ORDER BY 1) r`,
    [runIds],
  );
}

/**
 * Takes the store locks of those of `runIds` that no other transaction holds, without waiting;
 * returns their ids (ascending). @throws whatever PostgreSQL raises.
 */
export async function tryLockStoreRuns(
  client: pg.PoolClient,
  runIds: readonly number[],
): Promise<number[]> {
  if (runIds.length === 0) return [];
  const res = await client.query<{ id: number }>(
    `SELECT id FROM (SELECT DISTINCT unnest($1::int4[]) AS id ORDER BY 1) r
      WHERE pg_try_advisory_xact_lock(${STORE_LOCK_SPACE}, id)`,
    [runIds],
  );
  return res.rows.map((r) => r.id);
}
