/**
 * Reduces a long series (e.g. loss over 10^6 steps) to what a chart can draw without losing its
 * shape: per bucket the lowest and highest point survive, so spikes never vanish.
 */

/** One chart point: x is a step or epoch ms, y the value (NaN/±Infinity allowed). */
export type XYPoint = { x: number; y: number };

/** Points sorted by x: all if ≤ maxPoints have finite y, else min-/max-y point of ⌊maxPoints/2⌋ equal-width x buckets; NaN/±∞ y always kept, non-finite x dropped; total = input length; RangeError if maxPoints < 2. */
export function minMaxDownsample(
  points: readonly XYPoint[],
  maxPoints: number,
): { points: XYPoint[]; total: number } {
  if (!Number.isInteger(maxPoints) || maxPoints < 2)
    throw new RangeError(`maxPoints must be an integer ≥ 2, got ${maxPoints}`);
  const total = points.length;
  // A point without a finite x has no place on the axis. Array.prototype.sort is stable, so points
  // with equal x keep their input order.
  const sorted = points.filter((p) => Number.isFinite(p.x)).sort((a, b) => a.x - b.x);

  let finiteCount = 0;
  let xMin = Infinity;
  let xMax = -Infinity;
  for (const p of sorted) {
    if (!Number.isFinite(p.y)) continue;
    finiteCount++;
    if (p.x < xMin) xMin = p.x;
    if (p.x > xMax) xMax = p.x;
  }
  // The budget is for finite points: NaN/∞ are kept as markers anyway, so counting them here
  // could make "downsampling" return more points than it was given.
  if (finiteCount <= maxPoints) return { points: sorted, total };

  // Equal-width buckets (not equal-count): on a time or step axis each bucket then covers the same
  // width on screen, and a burst of dense samples cannot crowd out a sparse stretch. Empty buckets
  // (gaps) simply yield nothing, so the result can be shorter than maxPoints.
  const buckets = Math.floor(maxPoints / 2);
  const span = xMax - xMin;
  const minIdx = new Array<number>(buckets).fill(-1);
  const maxIdx = new Array<number>(buckets).fill(-1);
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i]!;
    if (!Number.isFinite(p.y)) continue;
    const b = span > 0 ? Math.min(buckets - 1, Math.floor(((p.x - xMin) / span) * buckets)) : 0;
    // Strict comparisons: on ties the earliest point wins, so a flat bucket yields one point.
    const lo = minIdx[b]!;
    if (lo < 0 || p.y < sorted[lo]!.y) minIdx[b] = i;
    const hi = maxIdx[b]!;
    if (hi < 0 || p.y > sorted[hi]!.y) maxIdx[b] = i;
  }

  const keep = new Set<number>();
  for (let b = 0; b < buckets; b++) {
    if (minIdx[b]! >= 0) keep.add(minIdx[b]!);
    if (maxIdx[b]! >= 0) keep.add(maxIdx[b]!);
  }
  // Filtering the sorted array keeps everything in x order, non-finite markers included.
  return { points: sorted.filter((p, i) => keep.has(i) || !Number.isFinite(p.y)), total };
}
