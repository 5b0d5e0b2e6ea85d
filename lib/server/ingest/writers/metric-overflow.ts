import { isCounterOverflow } from "@/lib/metrics/steps";
import type { PointColumns } from "@/lib/metrics/tiers";
import type { SqlPart } from "./metric-tiers";

/** A server-raised alert to store as a run event. */
export interface RaisedAlert {
  runId: number;
  code: string;
  level: "warn" | "error";
  message: string;
}

/**
 * The step-overflow check of a `run.metrics` batch is O(keys): "MetricSeries" keeps one row per
 * (run, key) with the highest step stored (NaN/±Infinity points included). Two parts of the
 * writer's single statement (metrics.ts): `prev` reads the rows of the batch's keys, `raised`
 * lifts them to the batch's highest steps; both see the rows as they were before the statement
 * (a data-modifying CTE), so `prev` is what the batch is checked against. The caller holds the
 * run row's lock, so batches of one run cannot interleave. `$1` is the run id.
 */
export function maxStepSql(points: PointColumns, first: number): { prev: string; raised: SqlPart } {
  const batchMax = new Map<string, bigint>();
  for (let i = 0; i < points.key.length; i++) {
    const m = batchMax.get(points.key[i]!);
    if (m === undefined || points.step[i]! > m) batchMax.set(points.key[i]!, points.step[i]!);
  }
  return {
    prev: `SELECT key, "maxStep" FROM "MetricSeries" WHERE "runId" = $1 AND key = ANY($${first}::text[])`,
    raised: {
      sql: `INSERT INTO "MetricSeries" ("runId", key, "maxStep") SELECT $1::int4, * FROM unnest($${first}::text[], $${first + 1}::int8[])
            ON CONFLICT ("runId", key) DO UPDATE SET "maxStep" = EXCLUDED."maxStep" WHERE "MetricSeries"."maxStep" < EXCLUDED."maxStep"`,
      params: [[...batchMax.keys()], [...batchMax.values()].map(String)],
    },
  };
}

/**
 * Walks the batch in arrival order from `stored` (the highest step per key before the batch) and
 * returns a `step_overflow` warning for every step that went back by ~2^32 from the highest seen
 * before it (a wrapped 32-bit step counter); an ordinary resume (a smaller drop) raises nothing.
 */
export function overflowAlerts(runId: number, points: PointColumns, stored: ReadonlyMap<string, bigint>): RaisedAlert[] {
  const highest = new Map(stored);
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
