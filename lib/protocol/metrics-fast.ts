import { isSaneEpochMs } from "./bounds";
import type { RunMetricsFrame } from "./frames";

/**
 * A fast, strictly narrower check of a `run.metrics` frame, for the ingest hot path: 1,000 points
 * a frame through zod's per-point object and union machinery (anyNumber, step64) cost several µs
 * a point of server CPU. This loop accepts only what `runMetricsFrame` accepts (same bounds,
 * no unknown keys) and returns the same value zod would (the non-finite strings as numbers); on
 * anything it is not sure of — a string step, an unknown key, any bad field — it returns null and
 * the caller runs zod, which stays the schema of record and words every error (index and field
 * of the first bad point). `v` must have been checked already.
 */
export function fastRunMetricsFrame(value: Record<string, unknown>): RunMetricsFrame | null {
  let fields = 0;
  for (const k in value) {
    if (k !== "v" && k !== "id" && k !== "type" && k !== "run" && k !== "points") return null;
    fields++;
  }
  if (fields !== 5 || value.type !== "run.metrics" || !isKey(value.id) || !isKey(value.run))
    return null;
  const points = value.points;
  if (!Array.isArray(points) || points.length < 1 || points.length > 10_000) return null;
  let out: unknown[] | null = null;
  for (let i = 0; i < points.length; i++) {
    const p: unknown = points[i];
    if (p === null || typeof p !== "object" || Array.isArray(p)) return null;
    const point = p as { key?: unknown; step?: unknown; value?: unknown; ts?: unknown };
    let n = 0;
    for (const k in point) {
      if (k !== "key" && k !== "step" && k !== "value" && k !== "ts") return null;
      n++;
    }
    const { key, step, ts } = point;
    if (typeof key !== "string" || key.length < 1 || key.length > 200) return null;
    if (typeof step !== "number" || !Number.isSafeInteger(step)) return null;
    if (
      ts !== undefined
        ? typeof ts !== "number" || !Number.isSafeInteger(ts) || !isSaneEpochMs(ts)
        : n !== 3
    )
      return null;
    let v = point.value;
    if (typeof v !== "number") {
      if (v !== "NaN" && v !== "Infinity" && v !== "-Infinity") return null;
      v = Number(v);
      out ??= points.slice(0, i);
      out.push(ts === undefined ? { key, step, value: v } : { key, step, value: v, ts });
      continue;
    }
    out?.push(p);
  }
  return {
    ...(value as unknown as RunMetricsFrame),
    points: (out ?? points) as RunMetricsFrame["points"],
  };
}

function isKey(v: unknown): v is string {
  return typeof v === "string" && v.length >= 1 && v.length <= 200;
}
