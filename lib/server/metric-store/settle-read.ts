import type { PrismaClient } from "@/generated/prisma/client";
import { rawPoolOf } from "@/lib/server/database/raw-pool";

import { settleRuns } from "./fold";

/**
 * What every reader of the store does first: folds the pending points (fold.ts) of those of
 * `runIds` that have any, so its answer holds every point acked before the call. Costs one
 * index probe of "MetricPending" when nothing is pending (the usual case: the background fold
 * runs every 250 ms); otherwise the fold those rows would get a moment later, under the runs'
 * locks. The fold needs the raw pool bound to `db` (lib/server/database/raw-pool.ts).
 * @throws Error when rows are pending and no pool is bound to `db`; whatever PostgreSQL raises.
 */
export async function settleForRead(db: PrismaClient, runIds: readonly number[]): Promise<void> {
  if (runIds.length === 0) return;
  const rows = await db.$queryRaw<Array<{ runId: number }>>`
    SELECT DISTINCT "runId" FROM "MetricPending" WHERE "runId" = ANY(${[...runIds]}::int4[])`;
  if (rows.length === 0) return;
  await settlePendingRuns(
    db,
    rows.map((r) => r.runId),
  );
}

/**
 * Folds the pending points of every run that has any, for a read that orders runs by their
 * stored latest values in SQL ({@link latestFiniteValueSql} of latest.ts: the run list sorted by a
 * metric column), so the order counts every point acked before the call. One scan of the small
 * "MetricPending" table when nothing is pending. @throws as {@link settleForRead}.
 */
export async function settleAllForRead(db: PrismaClient): Promise<void> {
  const rows = await db.$queryRaw<Array<{ runId: number }>>`
    SELECT DISTINCT "runId" FROM "MetricPending"`;
  if (rows.length === 0) return;
  await settlePendingRuns(
    db,
    rows.map((r) => r.runId),
  );
}

/** Folds the pending points of `runIds` (known to have some) through the pool bound to `db`. @throws as {@link settleForRead}. */
export async function settlePendingRuns(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<void> {
  const pool = rawPoolOf(db);
  if (!pool)
    throw new Error(
      "metric store: points are pending and no pg pool is bound to this Prisma client (bindRawPool)",
    );
  await settleRuns(pool, runIds);
}
