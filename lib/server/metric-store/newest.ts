import type pg from "pg";

/** A stored point: step as exact decimal text, value (NaN/±Infinity as such), time in epoch ms. */
export interface NewestPointRow {
  step: string;
  value: number;
  tsMs: number;
}

/** The `limit` points of (run `runId`, `key`) with the highest steps, newest first. @throws whatever PostgreSQL raises. */
export async function newestPoints(
  pool: pg.Pool,
  runId: number,
  key: string,
  limit: number,
): Promise<NewestPointRow[]> {
  const res = await pool.query<{ step: string; value: number; tsMs: number }>(
    `SELECT step::text AS step, value, (extract(epoch FROM ts) * 1000)::float8 AS "tsMs"
       FROM "MetricPoint" WHERE "runId" = $1 AND key = $2
      ORDER BY step DESC LIMIT $3`,
    [runId, key, limit],
  );
  return res.rows.map((r) => ({ step: r.step, value: Number(r.value), tsMs: r.tsMs }));
}
