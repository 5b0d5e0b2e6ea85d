import type { PrismaClient } from "@/generated/prisma/client";
import { COARSEST_BITS } from "@/lib/metrics/tiers";

import { settleForRead } from "./settle-read";

/** One key's latest finite point in a run. */
export interface LatestPointRow {
  runId: number;
  key: string;
  step: bigint;
  value: number;
}

/**
 * Per run of `runIds` and key: the finite point with the highest step, in one set-based read of
 * each key's top tier (one row per key, ≤ 16 at the coarsest; lib/metrics/tiers.ts). Keys with
 * only NaN/±Infinity points are absent. Rows by run, then key. Pending points (fold.ts) of these
 * runs are folded first. @throws whatever PostgreSQL raises.
 */
export async function latestFinitePoints(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<LatestPointRow[]> {
  if (runIds.length === 0) return [];
  await settleForRead(db, runIds);
  return db.$queryRaw<LatestPointRow[]>`
    SELECT DISTINCT ON (t."runId", t.key) t."runId", t.key, t."lastStep" AS step, t."lastValue" AS value
      FROM "MetricTier" t LEFT JOIN "MetricSeries" s ON s."runId" = t."runId" AND s.key = t.key
     WHERE t."runId" = ANY(${[...runIds]}::int[]) AND t.bits = coalesce(s."topBits", ${COARSEST_BITS}::int2) AND t.n > 0
     ORDER BY t."runId", t.key, t."lastStep" DESC`;
}
