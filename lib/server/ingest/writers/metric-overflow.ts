import type pg from "pg";
import { isCounterOverflow } from "@/lib/metrics/steps";
import type { PointColumns } from "@/lib/metrics/tiers";

/** A server-raised alert to store as a run event. */
export interface RaisedAlert {
  runId: number;
  code: string;
  level: "warn" | "error";
  message: string;
}

/**
 * The step-overflow check of a `run.metrics` batch, O(keys): reads the highest step stored so far
 * for each key of the batch from "MetricSeries" (one row per (run, key), NaN/±Infinity points
 * included) and raises it to the batch's highest, in one statement (both parts of a
 * data-modifying CTE see the rows as they were before it). Then walks the batch in arrival order
 * and returns a `step_overflow` warning for every step that went back by ~2^32 from the highest
 * seen before it (a wrapped 32-bit step counter). The caller holds the run row's lock, so batches
 * of one run cannot interleave here.
 * @throws whatever PostgreSQL raises.
 */
export async function overflowAlerts(client: pg.PoolClient, runId: number, points: PointColumns): Promise<RaisedAlert[]> {
  const batchMax = new Map<string, bigint>();
  for (let i = 0; i < points.key.length; i++) {
    const m = batchMax.get(points.key[i]!);
    if (m === undefined || points.step[i]! > m) batchMax.set(points.key[i]!, points.step[i]!);
  }
  const res = await client.query<{ key: string; maxStep: string }>(
    `WITH prev AS (SELECT key, "maxStep" FROM "MetricSeries" WHERE "runId" = $1 AND key = ANY($2::text[])),
          raised AS (
            INSERT INTO "MetricSeries" ("runId", key, "maxStep") SELECT $1::int4, * FROM unnest($2::text[], $3::int8[])
            ON CONFLICT ("runId", key) DO UPDATE SET "maxStep" = EXCLUDED."maxStep" WHERE "MetricSeries"."maxStep" < EXCLUDED."maxStep")
     SELECT key, "maxStep"::text AS "maxStep" FROM prev`,
    [runId, [...batchMax.keys()], [...batchMax.values()].map(String)],
  );
  const highest = new Map(res.rows.map((r) => [r.key, BigInt(r.maxStep)]));
  const alerts: RaisedAlert[] = [];
  for (let i = 0; i < points.key.length; i++) {
    const key = points.key[i]!;
    const step = points.step[i]!;
    const prev = highest.get(key);
    if (prev === undefined || step > prev) {
      highest.set(key, step);
    } else if (isCounterOverflow(prev, step)) {
      alerts.push({
        runId,
        code: "step_overflow",
        level: "warn",
        message: `metric '${key}': step went from ${prev} back to ${step} (about 2^32 lower): the step counter probably overflowed 32 bits`,
      });
    }
  }
  return alerts;
}
