import { Prisma, type PrismaClient } from "@/generated/prisma/client";

/**
 * Reads of serving telemetry (runs of kind `serving`: step = unix ms) from the metric points.
 */

/** The lowest step of any point of `runIds` in [from, to], or null when there is none. @throws whatever PostgreSQL raises. */
export async function firstStepBetween(
  db: PrismaClient,
  runIds: readonly number[],
  from: bigint,
  to: bigint,
): Promise<bigint | null> {
  const rows = await db.$queryRaw<Array<{ step: bigint | null }>>`
    SELECT min(step) AS step FROM "MetricPoint"
     WHERE "runId" = ANY(${[...runIds]}::int4[]) AND step BETWEEN ${from} AND ${to}`;
  return rows[0]?.step ?? null;
}

/** A bucketed or latest point of a serving run's key (`t`: the step, unix ms). */
export interface ServingPointRow {
  runId: number;
  key: string;
  t: bigint;
  value: number;
}

/** A serving run's scrape health: latest `up` sample, last good scrape, first failed scrape after it. */
export interface ServingUpRow {
  runId: number;
  lastT: bigint;
  lastUp: number;
  goodT: bigint | null;
  downSince: bigint | null;
}

/**
 * Three reads for serving runs `ids` over steps [from, to], in parallel: finite points bucketed by
 * `bucketMs` per key (`upKey` by its minimum, the others by their mean), each key's latest finite
 * value at the latest good scrape (`upKey` = 1), and per run its {@link ServingUpRow}.
 * @throws whatever PostgreSQL raises.
 */
export async function servingSeriesReads(
  db: PrismaClient,
  ids: number[],
  from: bigint,
  to: bigint,
  bucketMs: number,
  upKey: string,
): Promise<[ServingPointRow[], ServingPointRow[], ServingUpRow[]]> {
  const finite = Prisma.sql`value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)`;
  return Promise.all([
    db.$queryRaw<Array<{ runId: number; key: string; t: bigint; value: number }>>`
      SELECT "runId", key, min(step) AS t, CASE WHEN key = ${upKey} THEN min(value) ELSE avg(value) END AS value
        FROM "MetricPoint"
       WHERE "runId" = ANY(${ids}::int4[]) AND step BETWEEN ${from} AND ${to} AND ${finite}
       GROUP BY "runId", key, floor(step / ${bucketMs}::float8)
       ORDER BY "runId", key, t`,
    // Latest value of each key at the latest good scrape (`up` = 1 marks a good scrape).
    db.$queryRaw<Array<{ runId: number; key: string; t: bigint; value: number }>>`
      SELECT m."runId", m.key, m.step AS t, m.value
        FROM "MetricPoint" m
        JOIN (SELECT "runId", max(step) AS step FROM "MetricPoint"
               WHERE "runId" = ANY(${ids}::int4[]) AND key = ${upKey} AND value = 1 AND step <= ${to} GROUP BY "runId") g
          ON g."runId" = m."runId" AND g.step = m.step
       WHERE m.key <> ${upKey} AND m.${finite}`,
    // Latest `up`, and the first failed scrape after the last good one.
    db.$queryRaw<
      Array<{
        runId: number;
        lastT: bigint;
        lastUp: number;
        goodT: bigint | null;
        downSince: bigint | null;
      }>
    >`
      WITH u AS (SELECT "runId", step, value FROM "MetricPoint" WHERE "runId" = ANY(${ids}::int4[]) AND key = ${upKey} AND step <= ${to}),
           good AS (SELECT "runId", max(step) AS t FROM u WHERE value = 1 GROUP BY "runId"),
           last AS (SELECT DISTINCT ON ("runId") "runId", step, value FROM u ORDER BY "runId", step DESC)
      SELECT last."runId", last.step AS "lastT", last.value AS "lastUp", good.t AS "goodT",
             (SELECT min(step) FROM u WHERE u."runId" = last."runId" AND u.value = 0 AND u.step > COALESCE(good.t, -1)) AS "downSince"
        FROM last LEFT JOIN good ON good."runId" = last."runId"`,
  ]);
}
