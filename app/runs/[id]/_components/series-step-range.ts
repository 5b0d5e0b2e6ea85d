import type { MetricSeriesView } from "@/lib/view-models/metrics";

/**
 * The lowest and highest step over a run's series (steps as plot numbers), or null without a
 * point. Points come by ascending step, so each series' first and last point are its ends: no pass
 * over every point, and no spread of 200 keys × 1,000 points into Math.min (V8 throws "Maximum
 * call stack size exceeded" past about 125k arguments, which broke the run page of wide runs).
 */
export function seriesStepRange(
  series: readonly Pick<MetricSeriesView, "points">[],
): { lo: number; hi: number } | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    const first = Number(s.points[0]?.step);
    const last = Number(s.points[s.points.length - 1]?.step);
    if (Number.isFinite(first)) lo = Math.min(lo, first);
    if (Number.isFinite(last)) hi = Math.max(hi, last);
  }
  return Number.isFinite(lo) && Number.isFinite(hi) ? { lo, hi } : null;
}
