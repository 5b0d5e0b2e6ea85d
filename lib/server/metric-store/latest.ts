import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { COARSEST_BITS } from "@/lib/metrics/tiers";

import { settlePendingRuns } from "./settle-read";

/** One key's latest finite point in a run. */
export interface LatestPointRow {
  runId: number;
  key: string;
  step: bigint;
  value: number;
}

/**
 * Per run of `runIds` and key: the finite point with the highest step, in one set-based read of
 * each key's top tier (one row per key, ≤ 16 at the coarsest; lib/metrics/tiers.ts) merged with
 * the runs' pending points (fold.ts; the latest write of a step wins). Keys with only
 * NaN/±Infinity points are absent. Rows by run, then key. The overview reads this for many runs
 * at once, most of them with pending points under a fleet's load, so it does not fold them: only
 * a run whose stored latest point was replaced by a pending NaN/±Infinity (its latest finite
 * point is then below, in the tiers) is folded and read again. `keys`: only those keys (all
 * when absent). @throws whatever PostgreSQL raises.
 */
export async function latestFinitePoints(
  db: PrismaClient,
  runIds: readonly number[],
  keys?: readonly string[],
): Promise<LatestPointRow[]> {
  if (runIds.length === 0 || keys?.length === 0) return [];
  const rows = await latestRows(db, runIds, keys);
  const unsure = [...new Set(rows.filter((r) => r.unsure).map((r) => r.runId))];
  if (unsure.length === 0) return rows.map(rowOf);
  await settlePendingRuns(db, unsure);
  const again = await latestRows(db, unsure, keys);
  const kept = rows.filter((r) => !unsure.includes(r.runId));
  // A stable sort by run keeps each run's keys in the database's order.
  return [...kept, ...again].sort((a, b) => a.runId - b.runId).map(rowOf);
}

type LatestRow = LatestPointRow & { unsure: boolean };

function rowOf(r: LatestRow): LatestPointRow {
  return { runId: r.runId, key: r.key, step: r.step, value: r.value };
}

/**
 * Per (run, key): the later of the top tier's last finite point and the latest pending finite
 * point; `unsure` when neither answers (a pending write replaced the stored last step with a
 * NaN/±Infinity and no later finite point is pending).
 */
async function latestRows(
  db: PrismaClient,
  runIds: readonly number[],
  keys: readonly string[] | undefined,
): Promise<LatestRow[]> {
  const ids = [...runIds];
  const pendKey = keys ? Prisma.sql`AND u.key = ANY(${[...keys]}::text[])` : Prisma.empty;
  const tierKey = keys ? Prisma.sql`AND t.key = ANY(${[...keys]}::text[])` : Prisma.empty;
  return db.$queryRaw<LatestRow[]>`
    WITH pend AS (
      SELECT DISTINCT ON (q."runId", u.key, u.step) q."runId", u.key, u.step, u.value
        FROM "MetricPending" q CROSS JOIN LATERAL unnest(q.keys, q.steps, q."values") WITH ORDINALITY AS u(key, step, value, n)
       WHERE q."runId" = ANY(${ids}::int[]) ${pendKey}
       ORDER BY q."runId", u.key, u.step, q.id DESC, u.n DESC),
    pmax AS (
      SELECT DISTINCT ON ("runId", key) "runId", key, step, value FROM pend
       WHERE value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
       ORDER BY "runId", key, step DESC),
    tier AS (
      SELECT DISTINCT ON (t."runId", t.key) t."runId", t.key, t."lastStep" AS step, t."lastValue" AS value
        FROM "MetricTier" t LEFT JOIN "MetricSeries" s ON s."runId" = t."runId" AND s.key = t.key
       WHERE t."runId" = ANY(${ids}::int[]) AND t.bits = coalesce(s."topBits", ${COARSEST_BITS}::int2) AND t.n > 0 ${tierKey}
       ORDER BY t."runId", t.key, t."lastStep" DESC)
    SELECT coalesce(t."runId", p."runId") AS "runId", coalesce(t.key, p.key) AS key,
           CASE WHEN t.step IS NULL OR p.step >= t.step THEN p.step ELSE t.step END AS step,
           CASE WHEN t.step IS NULL OR p.step >= t.step THEN p.value ELSE t.value END AS value,
           coalesce(t.step IS NOT NULL AND (p.step IS NULL OR p.step < t.step)
                    AND EXISTS (SELECT 1 FROM pend x WHERE x."runId" = t."runId" AND x.key = t.key AND x.step = t.step), false) AS unsure
      FROM tier t FULL JOIN pmax p ON p."runId" = t."runId" AND p.key = t.key
     ORDER BY 1, 2`;
}

/**
 * SQL for the latest finite value of metric `key` in the run whose id is `runId` (an SQL
 * expression, e.g. `r.id`), from the top tier only: a point still pending (fold.ts) is not
 * counted, so callers fold first (settleAllForRead, settle-read.ts). NULL when the run has no
 * finite point of that key. For ordering lists.
 */
export function latestFiniteValueSql(runId: Prisma.Sql, key: string): Prisma.Sql {
  return Prisma.sql`(SELECT t."lastValue" FROM "MetricTier" t
      LEFT JOIN "MetricSeries" s ON s."runId" = t."runId" AND s.key = t.key
     WHERE t."runId" = ${runId} AND t.key = ${key} AND t.n > 0
       AND t.bits = coalesce(s."topBits", ${COARSEST_BITS}::int2)
     ORDER BY t."lastStep" DESC LIMIT 1)`;
}

/**
 * The metric keys of `runIds` (folded series and pending points, fold.ts: every key acked before
 * the call), most common first (by how many of the runs have it), then by name; at most `max`.
 * What a list offers as metric columns. @throws whatever PostgreSQL raises.
 */
export async function metricKeysOfRuns(
  db: PrismaClient,
  runIds: readonly number[],
  max = 60,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const ids = [...runIds];
  // Pending keys are read, not folded (as latestFinitePoints): a list page reads many runs.
  const rows = await db.$queryRaw<Array<{ key: string }>>`
    SELECT key FROM (
      SELECT "runId", key FROM "MetricSeries" WHERE "runId" = ANY(${ids}::int[])
      UNION
      SELECT q."runId", u.key FROM "MetricPending" q CROSS JOIN LATERAL unnest(q.keys) AS u(key)
       WHERE q."runId" = ANY(${ids}::int[])
    ) k
     GROUP BY key ORDER BY count(*) DESC, key LIMIT ${max}`;
  return rows.map((r) => r.key);
}
