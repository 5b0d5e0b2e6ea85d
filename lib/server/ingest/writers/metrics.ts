import type pg from "pg";
import type { z } from "zod";
import type { metricPoint } from "@/lib/protocol";
import { isCounterOverflow, parseStep } from "@/lib/metrics/steps";
import { maintainMetricTiers, pointId } from "./metric-tiers";

type MetricPoint = z.infer<typeof metricPoint>;

/** A server-raised alert to store as a run event. */
export interface RaisedAlert {
  runId: number;
  code: string;
  level: "warn" | "error";
  message: string;
}

/**
 * Upserts metric points by (run, key, step) with one multi-row statement per run: a re-sent
 * step replaces the old value (a resumed attempt wins); out-of-order steps are simply stored.
 * The run's pre-aggregated tiers are updated in the same transaction (metric-tiers.ts).
 * Returns alerts for steps that jumped backwards by ~2^32 (a wrapped 32-bit step counter),
 * compared with the highest step already stored for that key.
 */
export async function upsertMetricPoints(client: pg.PoolClient, items: Array<{ runId: number; point: MetricPoint }>, at: Date): Promise<RaisedAlert[]> {
  const byRun = new Map<number, Map<string, { key: string; step: bigint; value: number; ts: Date }>>();
  for (const { runId, point } of items) {
    let rows = byRun.get(runId);
    if (!rows) byRun.set(runId, (rows = new Map()));
    const step = parseStep(point.step);
    const id = `${point.key}\u0000${step}`;
    // Within one statement a row may be written once: the latest occurrence wins.
    rows.delete(id);
    rows.set(id, { key: point.key, step, value: point.value, ts: point.ts ? new Date(point.ts) : at });
  }
  const alerts: RaisedAlert[] = [];
  for (const [runId, rowMap] of byRun) {
    const rows = [...rowMap.values()];
    alerts.push(...(await overflowAlerts(client, runId, rows)));
    // xmax <> 0 marks a row the ON CONFLICT branch updated (the step existed): only those come back.
    const res = await client.query<{ key: string; step: string }>(
      `WITH written AS (
         INSERT INTO "MetricPoint" ("runId", key, step, value, ts)
         SELECT $1::int4, * FROM unnest($2::text[], $3::int8[], $4::float8[], $5::timestamptz[])
         ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts
         RETURNING key, step, xmax)
       SELECT key, step::text AS step FROM written WHERE xmax::text <> '0'`,
      [runId, rows.map((r) => r.key), rows.map((r) => r.step.toString()), rows.map((r) => r.value), rows.map((r) => r.ts)],
    );
    await maintainMetricTiers(client, runId, rows, new Set(res.rows.map((r) => pointId(r.key, BigInt(r.step)))));
  }
  return alerts;
}

async function overflowAlerts(client: pg.PoolClient, runId: number, rows: Array<{ key: string; step: bigint }>): Promise<RaisedAlert[]> {
  const keys = [...new Set(rows.map((r) => r.key))];
  const res = await client.query<{ key: string; maxStep: string }>(
    `SELECT key, max(step)::text AS "maxStep" FROM "MetricPoint" WHERE "runId" = $1 AND key = ANY($2::text[]) GROUP BY key`,
    [runId, keys],
  );
  const highest = new Map(res.rows.map((r) => [r.key, BigInt(r.maxStep)]));
  const alerts: RaisedAlert[] = [];
  for (const r of rows) {
    const prev = highest.get(r.key);
    if (prev !== undefined && isCounterOverflow(prev, r.step)) {
      alerts.push({
        runId,
        code: "step_overflow",
        level: "warn",
        message: `metric '${r.key}': step went from ${prev} back to ${r.step} (about 2^32 lower): the step counter probably overflowed 32 bits`,
      });
    }
    if (prev === undefined || r.step > prev) highest.set(r.key, r.step);
  }
  return alerts;
}
