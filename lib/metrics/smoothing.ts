/**
 * Exponential moving average of a series, the way TensorBoard and W&B smooth training curves:
 * `avg = avg·w + v·(1−w)`, debiased by `1 − w^n` so the first points are not dragged towards 0.
 * `weight` is clamped to [0, 0.999]; 0 returns the values unchanged. A non-finite value (NaN, ±∞)
 * gives null at its place and does not enter the average (a diverged step never poisons the rest).
 */
export function emaSmooth(values: readonly number[], weight: number): Array<number | null> {
  const w = Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 0.999) : 0;
  let avg = 0;
  let n = 0;
  return values.map((v) => {
    if (!Number.isFinite(v)) return null;
    if (w === 0) return v;
    avg = avg * w + v * (1 - w);
    n++;
    return avg / (1 - w ** n);
  });
}

/** Highest smoothing weight the slider offers (0.99: a window of about 100 points). */
export const MAX_SMOOTHING = 0.99;

/** Reads a smoothing weight from a URL value ("0.6"); anything else (missing, out of range, not a number) gives `fallback`. */
export function parseSmoothing(value: string | null | undefined, fallback: number): number {
  if (value === null || value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && n <= MAX_SMOOTHING ? n : fallback;
}
