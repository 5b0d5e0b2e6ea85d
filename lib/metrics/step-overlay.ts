import { emaSmooth } from "./smoothing";

/** One run's points of a metric key, by ascending step (steps as numbers or 64-bit decimal strings). */
export interface StepSeriesInput {
  points: ReadonlyArray<{ step: number | string; value: number }>;
}

/**
 * A chart row of several runs' series of one metric key: `x` the step as a number, and per series
 * index i `r<i>` (raw value) and `s<i>` (smoothed value); null or absent where that series has no
 * drawable value at this step.
 */
export type StepRow = { x: number } & Record<string, number | null>;

/**
 * Merges several runs' series of one metric key into rows by step for one chart: each series is
 * smoothed on its own points (EMA with `weight`, see {@link emaSmooth}), then rows are joined by
 * step. With `logY`, values ≤ 0 are left off (a log axis cannot draw them); non-finite values are
 * always left off (the caller reports them). Rows come back by ascending step.
 */
export function overlayRows(
  series: readonly StepSeriesInput[],
  weight: number,
  logY: boolean,
): StepRow[] {
  const byX = new Map<number, StepRow>();
  series.forEach((s, i) => {
    const values = s.points.map((p) => (logY && p.value <= 0 ? Number.NaN : p.value));
    const smooth = emaSmooth(values, weight);
    s.points.forEach((p, j) => {
      const x = typeof p.step === "number" ? p.step : Number(p.step);
      if (!Number.isFinite(x)) return;
      const row = byX.get(x) ?? ({ x } as StepRow);
      const v = values[j]!;
      row[`r${i}`] = Number.isFinite(v) ? v : null;
      row[`s${i}`] = smooth[j] ?? null;
      byX.set(x, row);
    });
  });
  return [...byX.values()].sort((a, b) => a.x - b.x);
}

/** Every drawable y value of the rows (raw and smoothed), for the y axis. */
export function overlayValues(rows: readonly StepRow[]): number[] {
  const out: number[] = [];
  for (const r of rows)
    for (const [k, v] of Object.entries(r)) if (k !== "x" && typeof v === "number") out.push(v);
  return out;
}
