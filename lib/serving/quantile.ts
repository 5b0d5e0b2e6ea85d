/** One cumulative histogram bucket: observations ≤ `le` (`le` may be +Infinity). */
export interface HistogramBucket {
  le: number;
  count: number;
}

/**
 * The q-quantile (0..1) of a cumulative histogram, the way Prometheus's `histogram_quantile`
 * computes it: find the bucket holding rank q·total and interpolate linearly inside it (lower bound
 * 0 for the first bucket). A rank in the `+Inf` bucket returns the highest finite bound. Returns NaN
 * with no observations or without a `+Inf` bucket. Buckets in the unit of the histogram (seconds
 * for SGLang/vLLM latencies).
 */
export function histogramQuantile(q: number, buckets: readonly HistogramBucket[]): number {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const last = sorted[sorted.length - 1];
  if (!last || last.le !== Infinity || sorted.length < 2) return NaN;
  const total = last.count;
  if (!(total > 0) || !(q >= 0 && q <= 1)) return NaN;
  const rank = q * total;
  let i = sorted.findIndex((b) => b.count >= rank);
  if (i < 0) i = sorted.length - 1;
  if (i === sorted.length - 1) return sorted[sorted.length - 2]!.le;
  const bucket = sorted[i]!;
  if (i === 0 && bucket.le <= 0) return bucket.le;
  const lower = i === 0 ? 0 : sorted[i - 1]!.le;
  const below = i === 0 ? 0 : sorted[i - 1]!.count;
  const inBucket = bucket.count - below;
  if (inBucket <= 0) return bucket.le;
  return lower + (bucket.le - lower) * ((rank - below) / inBucket);
}
