import type { PrismaClient } from "@/generated/prisma/client";
import type { UploadBucket, UploadSeriesView } from "@/lib/view-models/pipeline";

/** The uploads chart keeps at most about this many time buckets. */
const UPLOAD_BUCKETS = 300;

/** Bucket widths (s) the uploads chart may use: round numbers on a time axis. */
const NICE_BUCKETS_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
  172_800, 604_800,
];

/** Smallest round bucket width (s) that splits `spanS` into at most {@link UPLOAD_BUCKETS} buckets. */
export function uploadBucketS(spanS: number): number {
  const need = spanS / UPLOAD_BUCKETS;
  return NICE_BUCKETS_S.find((b) => b >= need) ?? Math.ceil(need / 86_400) * 86_400;
}

/**
 * "S3 uploads over time": `s3.uploaded` summed over workers per time bucket (aligned to the
 * epoch). Each worker's counter is a monotonic total, so its value in a bucket is its last report
 * there, carried forward through buckets in which it did not report (a running max): the sum never
 * dips because one worker was quiet. Per bucket and worker one index probe finds the last report
 * (no scan of every sample: a 40 h run at one report per second per worker has ~600k).
 */
export async function uploadSeries(db: PrismaClient, runId: number): Promise<UploadSeriesView> {
  const bounds = await db.$queryRaw<Array<{ lo: number | null; hi: number | null }>>`
    SELECT extract(epoch FROM min(ts))::float8 AS lo, extract(epoch FROM max(ts))::float8 AS hi
    FROM "ProgressSample" WHERE "runId" = ${runId}`;
  const lo = bounds[0]?.lo ?? null;
  const hi = bounds[0]?.hi ?? null;
  if (lo === null || hi === null) return { bucketS: 1, buckets: [] };
  const bucketS = uploadBucketS(hi - lo);
  const rows = await db.$queryRaw<
    Array<{ tMs: number; uploaded: number | null; sampled: boolean; lastMs: number | null }>
  >`
    WITH workers AS (SELECT "workerId" FROM "WorkerProgress" WHERE "runId" = ${runId}),
    grid AS (
      SELECT g.b, w."workerId"
        FROM generate_series(floor(${lo}::float8 / ${bucketS}::float8)::int8, floor(${hi}::float8 / ${bucketS}::float8)::int8) AS g(b)
       CROSS JOIN workers w
    ), last_report AS (
      SELECT grid.b, grid."workerId", l.up, l.ts, l.ts IS NOT NULL AS sampled
        FROM grid
        LEFT JOIN LATERAL (
          SELECT (p.counters ->> 's3.uploaded')::float8 AS up, p.ts
            FROM "ProgressSample" p
           WHERE p."runId" = ${runId} AND p."workerId" = grid."workerId"
             AND p.ts >= to_timestamp(grid.b * ${bucketS}::float8) AND p.ts < to_timestamp((grid.b + 1) * ${bucketS}::float8)
           ORDER BY p.ts DESC LIMIT 1
        ) l ON true
    ), filled AS (
      SELECT b, max(up) OVER (PARTITION BY "workerId" ORDER BY b) AS up, sampled, ts FROM last_report
    )
    SELECT (b * ${bucketS}::float8 * 1000)::float8 AS "tMs", sum(up)::float8 AS uploaded, bool_or(sampled) AS sampled,
           (extract(epoch FROM max(ts)) * 1000)::float8 AS "lastMs"
      FROM filled GROUP BY b ORDER BY b`;
  // No worker ever reported the counter: no chart.
  if (rows.every((r) => r.uploaded === null)) return { bucketS, buckets: [] };
  // Workers report every few seconds or minutes, often less often than the bucket width. The
  // increase between two reported buckets, over the time between their last reports, is spread
  // evenly over the buckets it spans: the rate does not alternate between 0 and double when
  // reports are sparser than buckets, and the current (partial) bucket is not under-counted.
  const buckets: UploadBucket[] = rows.map((r) => ({
    tMs: r.tMs,
    uploaded: r.uploaded ?? 0,
    ratePerS: null,
    sampled: r.sampled,
  }));
  let last = -1;
  rows.forEach((r, i) => {
    if (!r.sampled || r.lastMs === null) return;
    const prev = last >= 0 ? rows[last]! : null;
    if (prev && prev.lastMs !== null && r.lastMs > prev.lastMs) {
      const rate =
        Math.max(0, buckets[i]!.uploaded - buckets[last]!.uploaded) /
        ((r.lastMs - prev.lastMs) / 1000);
      for (let k = last + 1; k <= i; k++) buckets[k]!.ratePerS = rate;
    }
    last = i;
  });
  return { bucketS, buckets };
}
