/**
 * Read models of a run's metric series (loss, accuracy, lr, τ…) as charts draw them. Steps are
 * 64-bit in the database: numbers when exactly representable, else decimal strings. Values may be
 * NaN or ±Infinity (kept as numbers here; the API writes them as strings).
 */

/** One drawn point of a series. */
export interface MetricPointView {
  /** Training step: a number, or a decimal string beyond 2^53. */
  step: number | string;
  /** The value as stored (NaN/±Infinity included). */
  value: number;
}

/** One metric key, possibly downsampled (min and max of each step bucket, every non-finite point). */
export interface MetricSeriesView {
  key: string;
  /** Points by ascending step. */
  points: MetricPointView[];
  /** Points stored for this key. */
  total: number;
  /** Points returned (`points.length`); less than `total` when downsampled. */
  shown: number;
}

/** All metric series of a run (`GET /api/runs/:id/metrics`), keys in alphabetical order. */
export interface RunMetricsView {
  runId: number;
  /** Point budget per series: a longer series is reduced to the min and max of maxPoints/2 step buckets. */
  maxPoints: number;
  series: MetricSeriesView[];
}
