import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { NotFoundError } from "@/lib/server/errors";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";
import { stepValue } from "./pipelines";

/** Default point budget per series (≈ 2 points per pixel column of a wide chart). */
export const DEFAULT_MAX_POINTS = 1000;

/**
 * A run's metric series, downsampled in PostgreSQL so that a million-point loss curve never
 * leaves the database: a key with at most `maxPoints` finite values is returned whole; a longer
 * one is cut into ⌊maxPoints/2⌋ equal-width step buckets (over the finite values' step range)
 * and each bucket keeps its lowest and highest value (ties: the lowest step), so spikes never
 * vanish. Every NaN/±Infinity point is always kept: the chart marks each one. The same rule as
 * `minMaxDownsample` in lib/metrics/downsample.ts, computed in SQL.
 * @throws NotFoundError when no run has this id.
 */
export async function getRunMetrics(db: PrismaClient, runId: number, opts: { maxPoints?: number; keys?: readonly string[] } = {}): Promise<RunMetricsView> {
  const maxPoints = Math.max(2, Math.floor(opts.maxPoints ?? DEFAULT_MAX_POINTS));
  const buckets = Math.floor(maxPoints / 2);
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  const keys = opts.keys && opts.keys.length > 0 ? [...opts.keys] : null;

  // One scan for per-key statistics, then:
  // - rows kept as they are (series within budget, and every non-finite value) are read directly;
  // - longer series are grouped into step buckets, each keeping the row with the lowest value and
  //   the row with the highest value (ties: the lowest step). Those rows come from min()/max() over
  //   arrays [value, step high 32 bits, step low 32 bits], compared element by element: one hash
  //   aggregation and no sort of the million rows; the split keeps 64-bit steps exact in float8.
  // `finite` excludes NaN (which Postgres sorts above every number) and ±Infinity. The bucket
  // formula is minMaxDownsample's: floor((step − lo) / (hi − lo) × buckets), capped at buckets − 1.
  const keyFilter = keys ? Prisma.sql`AND key = ANY(${keys}::text[])` : Prisma.empty;
  const rows = await db.$queryRaw<Array<{ key: string; step: bigint; value: number; total: number }>>`
    WITH stats AS (
      SELECT key, count(*)::int AS total,
             count(*) FILTER (WHERE value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))::int AS finite_n,
             min(step) FILTER (WHERE value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) AS lo,
             max(step) FILTER (WHERE value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) AS hi
        FROM "MetricPoint" WHERE "runId" = ${runId} ${keyFilter} GROUP BY key
    ), big AS (
      SELECT m.key,
             CASE WHEN s.hi = s.lo THEN 0
                  ELSE LEAST(${buckets}::int - 1, floor(((m.step - s.lo)::float8 / (s.hi - s.lo)::float8) * ${buckets}::int))::int END AS b,
             min(ARRAY[m.value, (m.step >> 32)::float8, (m.step & 4294967295)::float8]) AS lo_row,
             max(ARRAY[m.value, -((m.step >> 32)::float8), -((m.step & 4294967295)::float8)]) AS hi_row
        FROM "MetricPoint" m JOIN stats s ON s.key = m.key
       WHERE m."runId" = ${runId} AND s.finite_n > ${maxPoints}::int
         AND m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
       GROUP BY 1, 2
    )
    SELECT m.key, m.step, m.value, s.total
      FROM "MetricPoint" m JOIN stats s ON s.key = m.key
     WHERE m."runId" = ${runId}
       AND (s.finite_n <= ${maxPoints}::int OR m.value IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))
    UNION
    SELECT big.key, x.step, x.value, s.total
      FROM big JOIN stats s ON s.key = big.key
     CROSS JOIN LATERAL (VALUES
       (((lo_row[2])::int8 << 32) + (lo_row[3])::int8, lo_row[1]),
       (((-hi_row[2])::int8 << 32) + (-hi_row[3])::int8, hi_row[1])
     ) AS x(step, value)
     ORDER BY 1, 2`;

  const series: MetricSeriesView[] = [];
  let current: MetricSeriesView | null = null;
  for (const r of rows) {
    if (!current || current.key !== r.key) {
      current = { key: r.key, points: [], total: r.total, shown: 0 };
      series.push(current);
    }
    current.points.push({ step: stepValue(r.step), value: r.value });
  }
  for (const s of series) s.shown = s.points.length;
  return { runId, maxPoints, series };
}
