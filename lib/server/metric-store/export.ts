import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import type { MetricSource } from "@/lib/server/export/columns";

import { settleForRead } from "./settle-read";

/** Rows per query of the batched export read (the same size as the other exports' batches). */
const EXPORT_BATCH_ROWS = 5000;

/**
 * SQL (a scalar subquery's body) counting every metric point of run `runId`: rows of "MetricRow"
 * plus the array lengths of "MetricBlock" (index-only scan and block rows, no point unnested).
 * Counts folded points only: call {@link settleForRead} for the run first.
 */
export function metricPointCountSql(runId: number): Prisma.Sql {
  return Prisma.sql`(SELECT count(*) FROM "MetricRow" WHERE "runId" = ${runId}) + (SELECT coalesce(sum(cardinality(steps)), 0) FROM "MetricBlock" WHERE "runId" = ${runId})`;
}

/**
 * Every metric point of a run (all keys, not downsampled) by key then step, in batches of
 * `batchSize`. Keyset pagination: each query starts after the last (key, step) read, on
 * "MetricRow"'s primary key and on the blocks of "MetricBlock" (at most `batchSize` of them, in
 * key and step order: blocks never overlap) that reach past it, so a page costs the same however
 * deep into the series it is. NaN/±Infinity come back as such; steps as bigint. The run's pending
 * points (fold.ts) are folded before the first batch.
 */
export async function* metricPointBatches(
  db: PrismaClient,
  runId: number,
  batchSize = EXPORT_BATCH_ROWS,
): AsyncGenerator<MetricSource[]> {
  await settleForRead(db, [runId]);
  let after: { key: string; step: bigint } | null = null;
  for (;;) {
    const rowsAfter: Prisma.Sql = after
      ? Prisma.sql`AND (key, step) > (${after.key}, ${after.step}::int8)`
      : Prisma.empty;
    const blocksAfter: Prisma.Sql = after
      ? Prisma.sql`AND key >= ${after.key} AND (key, "lastStep") > (${after.key}, ${after.step}::int8)`
      : Prisma.empty;
    const pointsAfter: Prisma.Sql = after
      ? Prisma.sql`WHERE (b.key, p.step) > (${after.key}, ${after.step}::int8)`
      : Prisma.empty;
    const rows: MetricSource[] = await db.$queryRaw<MetricSource[]>`
      SELECT key, step, value, ts FROM (
        (SELECT key, step, value, ts FROM "MetricRow" WHERE "runId" = ${runId} ${rowsAfter} ORDER BY key, step LIMIT ${batchSize})
        UNION ALL
        (SELECT b.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
           FROM (SELECT key, steps, "values", "tsMs" FROM "MetricBlock" WHERE "runId" = ${runId} ${blocksAfter} ORDER BY key, "firstStep" LIMIT ${batchSize}) b
          CROSS JOIN LATERAL unnest(b.steps, b."values", b."tsMs") AS p(step, value, ms)
          ${pointsAfter})
      ) x
      ORDER BY key, step LIMIT ${batchSize}`;
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) return;
    const last: MetricSource = rows[rows.length - 1]!;
    after = { key: last.key, step: last.step };
  }
}
