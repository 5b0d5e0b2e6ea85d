/**
 * Pre-aggregated metric series ("tiers"), M4-style: per (run, key) and per tier `bits`, the points
 * whose step shares `step >> bits` (a bucket 2^bits steps wide) are summarised by their count and
 * their first, last, lowest and highest finite point, plus a count of non-finite points. A chart
 * column made of whole buckets then keeps its first/last (the line's joins) and its extremes (the
 * spikes) without reading raw rows. Pure math; lib/server/metric-store/tiers.ts keeps the
 * stored tiers current and lib/server/metric-store/read-series.ts answers chart requests from them.
 *
 * Orders (one total order each, so summaries merge exactly in any grouping): lowest = smallest
 * value, ties the lowest step; highest = largest value, ties the lowest step; first/last = lowest /
 * highest step. NaN and ±Infinity never enter first/last/min/max (they are counted in `nonFinite`
 * and returned separately, every one of them).
 */

/** Bits of the tiers a chart reads, finest first: buckets of 16, 256, … 2^60 steps (fan-out 16). */
export const TIER_BITS: readonly number[] = Array.from({ length: 15 }, (_, i) => 4 * (i + 1));
/** Bits between a tier and the next finer one (a bucket holds 16 buckets of the finer tier). */
export const TIER_FANOUT_BITS = 4;
/**
 * The finest tier ingest stores (the metric store's tier table): 256-step buckets. Tier 4 (16 steps) is summed at
 * read time from the raw points of the range instead (at most READ_FACTOR × 16 of them per chart
 * column, a few stored blocks): storing it was ~70 % of the tier rows ingest writes (6–7 rows
 * per key for every 100 appended steps, against one per coarser tier).
 */
export const FINEST_STORED_BITS = 8;
/** The tiers ingest stores, finest first (8, 12, … 60). */
export const STORED_TIER_BITS: readonly number[] = TIER_BITS.filter((b) => b >= FINEST_STORED_BITS);
/** The coarsest tier: at most 16 buckets over the whole signed 64-bit step range; used for per-key totals. */
export const COARSEST_BITS = TIER_BITS[TIER_BITS.length - 1]!;
/**
 * The tier a key's summaries stop at: the finest stored tier whose one bucket holds every step from `lo`
 * to `hi` (its whole series), or COARSEST_BITS when none does (steps of both signs, or beyond
 * 2^60 apart). Every coarser tier would hold that same bucket's summary under another number, so
 * ingest keeps only the tiers up to it (one to ~7 instead of 15 for ordinary steps) and readers
 * read this tier in place of a coarser one; it only grows as the series' step range widens.
 */
export function topBitsOf(lo: bigint, hi: bigint): number {
  for (const bits of STORED_TIER_BITS) if (lo >> BigInt(bits) === hi >> BigInt(bits)) return bits;
  return COARSEST_BITS;
}

/** A chart request reads at most this many buckets per column budget before merging them into columns. */
export const READ_FACTOR = 16;

/** Summary of the points of one bucket (steps are signed 64-bit). The step/value pairs are null when `n` is 0. */
export interface TierAggregate {
  /** Finite points. */
  n: number;
  /** NaN / ±Infinity points. */
  nonFinite: number;
  minStep: bigint | null;
  minValue: number | null;
  maxStep: bigint | null;
  maxValue: number | null;
  firstStep: bigint | null;
  firstValue: number | null;
  lastStep: bigint | null;
  lastValue: number | null;
}

/** A summary of no points. */
export function emptyAggregate(): TierAggregate {
  return {
    n: 0,
    nonFinite: 0,
    minStep: null,
    minValue: null,
    maxStep: null,
    maxValue: null,
    firstStep: null,
    firstValue: null,
    lastStep: null,
    lastValue: null,
  };
}

/** Adds one point to `agg` in place (a new step: callers never add the same step twice); allocates nothing. */
export function addPoint(agg: TierAggregate, step: bigint, value: number): void {
  if (!Number.isFinite(value)) {
    agg.nonFinite++;
    return;
  }
  if (agg.n++ === 0) {
    agg.minStep = agg.maxStep = agg.firstStep = agg.lastStep = step;
    agg.minValue = agg.maxValue = agg.firstValue = agg.lastValue = value;
    return;
  }
  if (value < agg.minValue! || (value === agg.minValue && step < agg.minStep!)) {
    agg.minValue = value;
    agg.minStep = step;
  }
  if (value > agg.maxValue! || (value === agg.maxValue && step < agg.maxStep!)) {
    agg.maxValue = value;
    agg.maxStep = step;
  }
  if (step < agg.firstStep!) {
    agg.firstStep = step;
    agg.firstValue = value;
  }
  if (step > agg.lastStep!) {
    agg.lastStep = step;
    agg.lastValue = value;
  }
}

/** Merges `other` (points disjoint from `into`'s) into `into` in place; the SQL merge in metric-tiers.ts follows the same rules. */
export function mergeAggregate(into: TierAggregate, other: TierAggregate): void {
  into.nonFinite += other.nonFinite;
  if (other.n === 0) return;
  if (into.n === 0) {
    Object.assign(into, other, { nonFinite: into.nonFinite });
    return;
  }
  into.n += other.n;
  if (
    other.minValue! < into.minValue! ||
    (other.minValue === into.minValue && other.minStep! < into.minStep!)
  ) {
    into.minValue = other.minValue;
    into.minStep = other.minStep;
  }
  if (
    other.maxValue! > into.maxValue! ||
    (other.maxValue === into.maxValue && other.maxStep! < into.maxStep!)
  ) {
    into.maxValue = other.maxValue;
    into.maxStep = other.maxStep;
  }
  if (other.firstStep! < into.firstStep!) {
    into.firstStep = other.firstStep;
    into.firstValue = other.firstValue;
  }
  if (other.lastStep! > into.lastStep!) {
    into.lastStep = other.lastStep;
    into.lastValue = other.lastValue;
  }
}

/** One stored tier row: the bucket `bucket` (= step >> bits) of tier `bits` of one key. */
export interface TierRow {
  key: string;
  bits: number;
  bucket: bigint;
  agg: TierAggregate;
}

/** Metric points as parallel columns (entry i of each is one point), distinct by (key, step). */
export interface PointColumns {
  key: readonly string[];
  step: readonly bigint[];
  /** May be NaN/±Infinity. */
  value: readonly number[];
}

/** Steps in a finest-tier bucket, minus one. */
const FINEST_SPAN_MINUS_1 = (1n << BigInt(TIER_BITS[0]!)) - 1n;

/**
 * Summaries of `points` for every tier in TIER_BITS, one row per touched bucket. The finest tier
 * is summed point by point (consecutive points of a key in the same bucket reuse its row, so a
 * batch of appended steps does one Map lookup per 16 points), each coarser tier from the rows of
 * the one below (buckets are disjoint, so merging is exact): ~1 pass over the points, not one per tier.
 */
export function tierRowsOf(points: PointColumns): TierRow[] {
  const shift = BigInt(TIER_BITS[0]!);
  // Per key: its finest-tier rows, and the row its previous point went to with that bucket's
  // step bounds: a point in the same bucket costs two bigint comparisons, no shift (which
  // allocates a BigInt) and no lookup by bucket.
  const byKey = new Map<
    string,
    { last: TierRow; lo: bigint; hi: bigint; rows: Map<bigint, TierRow> }
  >();
  let level: TierRow[] = [];
  for (let i = 0; i < points.key.length; i++) {
    const key = points.key[i]!;
    const step = points.step[i]!;
    let k = byKey.get(key);
    let row: TierRow;
    if (k !== undefined && step >= k.lo && step <= k.hi) row = k.last;
    else {
      const bucket = step >> shift;
      if (!k) byKey.set(key, (k = { last: undefined!, lo: 0n, hi: -1n, rows: new Map() }));
      let found = k.rows.get(bucket);
      if (!found) {
        k.rows.set(bucket, (found = { key, bits: TIER_BITS[0]!, bucket, agg: emptyAggregate() }));
        level.push(found);
      }
      row = k.last = found;
      k.lo = bucket << shift;
      k.hi = k.lo + FINEST_SPAN_MINUS_1;
    }
    addPoint(row.agg, step, points.value[i]!);
  }
  const out = [...level];
  const fanout = BigInt(TIER_FANOUT_BITS);
  for (const bits of TIER_BITS.slice(1)) {
    const parents = new Map<string, Map<bigint, TierRow>>();
    const next: TierRow[] = [];
    for (const child of level) {
      const bucket = child.bucket >> fanout;
      let rows = parents.get(child.key);
      if (!rows) parents.set(child.key, (rows = new Map()));
      let row = rows.get(bucket);
      if (!row) {
        rows.set(bucket, (row = { key: child.key, bits, bucket, agg: emptyAggregate() }));
        next.push(row);
      }
      mergeAggregate(row.agg, child.agg);
    }
    out.push(...next);
    level = next;
  }
  return out;
}

/** A contiguous run of buckets of one tier (`bits` 0 = raw steps), `lo`..`hi` inclusive bucket numbers. */
export interface TierPiece {
  bits: number;
  lo: bigint;
  hi: bigint;
}

/**
 * Exact cover of the steps lo..hi (inclusive) by whole buckets: buckets of tier `bits` where they
 * fit entirely, the partial ends by finer tiers (16× narrower each), the last few steps as raw
 * steps (`bits` 0). At most ~30 pieces per tier level; no bucket reaches outside lo..hi, so a
 * zoomed chart reads exactly its range.
 */
export function coverRange(lo: bigint, hi: bigint, bits: number): TierPiece[] {
  const out: TierPiece[] = [];
  const cover = (a: bigint, b: bigint, t: number) => {
    if (a > b) return;
    if (t <= 0) {
      out.push({ bits: 0, lo: a, hi: b });
      return;
    }
    const shift = BigInt(t);
    const firstFull = -(-a >> shift); // ceil(a / 2^t)
    const lastFull = ((b + 1n) >> shift) - 1n; // floor((b + 1) / 2^t) − 1
    if (firstFull > lastFull) return cover(a, b, t - TIER_FANOUT_BITS);
    cover(a, (firstFull << shift) - 1n, t - TIER_FANOUT_BITS);
    out.push({ bits: t, lo: firstFull, hi: lastFull });
    cover((lastFull + 1n) << shift, b, t - TIER_FANOUT_BITS);
  };
  cover(lo, hi, bits);
  return out;
}

/** Number of tier-`bits` buckets the steps lo..hi touch. */
export function bucketSpan(lo: bigint, hi: bigint, bits: number): bigint {
  return (hi >> BigInt(bits)) - (lo >> BigInt(bits)) + 1n;
}

/** How a chart request over lo..hi is answered: read tier `bits` (0 = raw rows) and merge `perColumn` adjacent buckets into each column. */
export interface SeriesPlan {
  bits: number;
  perColumn: bigint;
  columns: number;
}

/**
 * The finest tier (raw steps included) whose bucket count over lo..hi is at most READ_FACTOR ×
 * `columns`, and how many of its buckets make one column (so at most `columns` columns).
 */
export function planSeries(lo: bigint, hi: bigint, columns: number): SeriesPlan {
  const limit = BigInt(columns * READ_FACTOR);
  for (const bits of [0, ...TIER_BITS]) {
    const span = bucketSpan(lo, hi, bits);
    if (span <= limit || bits === COARSEST_BITS) {
      const perColumn = (span + BigInt(columns) - 1n) / BigInt(columns);
      return { bits, perColumn: perColumn < 1n ? 1n : perColumn, columns };
    }
  }
  throw new Error("unreachable: the coarsest tier always fits");
}

/** One drawn point with an exact step. */
export interface StepPoint {
  step: bigint;
  value: number;
}

/**
 * M4 over `aggregates` (each lying within one column of `plan`, as coverRange's pieces do): per
 * column its first, lowest, highest and last finite point, each step once, by ascending step.
 */
export function m4Points(
  aggregates: Iterable<TierAggregate>,
  lo: bigint,
  plan: SeriesPlan,
): StepPoint[] {
  const shift = BigInt(plan.bits);
  const base = lo >> shift;
  const columns = new Map<bigint, TierAggregate>();
  for (const a of aggregates) {
    if (a.n === 0) continue;
    const col = ((a.firstStep! >> shift) - base) / plan.perColumn;
    const into = columns.get(col);
    if (into) mergeAggregate(into, a);
    else columns.set(col, { ...a });
  }
  const out: StepPoint[] = [];
  for (const col of [...columns.keys()].sort(compareBigint)) {
    const a = columns.get(col)!;
    const picks: StepPoint[] = [
      { step: a.firstStep!, value: a.firstValue! },
      { step: a.minStep!, value: a.minValue! },
      { step: a.maxStep!, value: a.maxValue! },
      { step: a.lastStep!, value: a.lastValue! },
    ].sort((x, y) => compareBigint(x.step, y.step));
    for (const p of picks)
      if (out.length === 0 || out[out.length - 1]!.step !== p.step) out.push(p);
  }
  return out;
}

/** Comparator for bigint sorting (ascending). */
export function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
