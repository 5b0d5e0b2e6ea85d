import { isCounterOverflow } from "@/lib/metrics/steps";
import type { PointColumns } from "@/lib/metrics/tiers";

import type { SeriesState } from "./series";

/** A server-raised alert to store as a run event. */
export interface RaisedAlert {
  runId: number;
  code: string;
  level: "warn" | "error";
  message: string;
}

/**
 * The step-overflow check of a `run.metrics` batch, O(keys): walks the batch in arrival order from
 * `stored` (per key the "MetricSeries" row before the batch, series.ts: its highest step) and
 * returns a `step_overflow` warning for every step that went back by ~2^32 from the highest seen
 * before it (a wrapped 32-bit step counter); an ordinary resume (a smaller drop) raises nothing.
 */
export function overflowAlerts(
  runId: number,
  points: PointColumns,
  stored: ReadonlyMap<string, SeriesState> | undefined,
): RaisedAlert[] {
  const highest = new Map<string, bigint>();
  for (const [key, s] of stored ?? []) highest.set(key, s.maxStep);
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
