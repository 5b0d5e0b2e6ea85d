import type { ExpositionSample } from "./exposition";
import type { HistogramBucket } from "./quantile";

/**
 * Aggregation over the series of one metric family in a scrape (one per DP rank, TP rank or vLLM
 * engine, told apart by labels): sums and means of gauges, reset-aware counter increases and
 * histogram bucket increases between two scrapes. Pure.
 */

/** One scrape: when it was taken (epoch ms) and what it returned. */
export interface ScrapeSnapshot {
  tsMs: number;
  samples: readonly ExpositionSample[];
}

/** Identity of a series: name plus its labels, sorted, optionally without one label (`le`). */
export function seriesId(s: ExpositionSample, without?: string): string {
  const labels = Object.keys(s.labels)
    .filter((k) => k !== without)
    .sort()
    .map((k) => `${k}=${JSON.stringify(s.labels[k])}`);
  return `${s.name}{${labels.join(",")}}`;
}

function named(
  samples: readonly ExpositionSample[],
  name: string,
  filter?: (s: ExpositionSample) => boolean,
): ExpositionSample[] {
  return samples.filter((s) => s.name === name && (!filter || filter(s)));
}

/** True when the scrape has at least one sample called `name`. */
export function hasMetric(samples: readonly ExpositionSample[], name: string): boolean {
  return samples.some((s) => s.name === name);
}

/** Sum of a gauge over its series, NaN samples skipped; null when no finite-or-infinite sample exists. */
export function gaugeSum(samples: readonly ExpositionSample[], name: string): number | null {
  const vals = named(samples, name)
    .map((s) => s.value)
    .filter((v) => !Number.isNaN(v));
  return vals.length ? vals.reduce((a, b) => a + b, 0) : null;
}

/** Mean of a gauge over its series (e.g. KV-cache usage of each DP rank's pool), NaN skipped; null when none. */
export function gaugeMean(samples: readonly ExpositionSample[], name: string): number | null {
  const vals = named(samples, name)
    .map((s) => s.value)
    .filter((v) => !Number.isNaN(v));
  return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
}

/**
 * Increase of a counter between two scrapes, summed over its series. Per series: `cur - prev`, or
 * `cur` when the counter went down (the engine restarted and counts from 0, as Prometheus's
 * `increase()` assumes). A series absent from either scrape contributes nothing (no baseline), so
 * is a NaN value. Null when no series is in both scrapes.
 */
export function counterIncrease(
  prev: readonly ExpositionSample[],
  cur: readonly ExpositionSample[],
  name: string,
  filter?: (s: ExpositionSample) => boolean,
): number | null {
  const before = new Map(named(prev, name, filter).map((s) => [seriesId(s), s.value]));
  let total: number | null = null;
  for (const s of named(cur, name, filter)) {
    const p = before.get(seriesId(s));
    if (p === undefined || Number.isNaN(p) || Number.isNaN(s.value)) continue;
    total = (total ?? 0) + (s.value >= p ? s.value - p : s.value);
  }
  return total;
}

/**
 * Observations added to a histogram between two scrapes, as cumulative buckets summed over every
 * series (ranks share one bucket layout). Reset-aware per series: when a series' `+Inf` count went
 * down, its current buckets are the increase. Series without a baseline are left out. Empty when
 * no series is in both scrapes.
 */
export function histogramIncrease(
  prev: readonly ExpositionSample[],
  cur: readonly ExpositionSample[],
  family: string,
): HistogramBucket[] {
  const bucketName = `${family}_bucket`;
  const group = (samples: readonly ExpositionSample[]) => {
    const bySeries = new Map<string, Map<number, number>>();
    for (const s of named(samples, bucketName)) {
      const le =
        s.labels.le === undefined ? null : s.labels.le === "+Inf" ? Infinity : Number(s.labels.le);
      if (le === null || Number.isNaN(le) || Number.isNaN(s.value)) continue;
      const id = seriesId(s, "le");
      let m = bySeries.get(id);
      if (!m) bySeries.set(id, (m = new Map()));
      m.set(le, s.value);
    }
    return bySeries;
  };
  const before = group(prev);
  const sums = new Map<number, number>();
  for (const [id, buckets] of group(cur)) {
    const base = before.get(id);
    if (!base) continue;
    const reset = (buckets.get(Infinity) ?? 0) < (base.get(Infinity) ?? 0);
    for (const [le, count] of buckets) {
      const inc = reset ? count : Math.max(0, count - (base.get(le) ?? 0));
      sums.set(le, (sums.get(le) ?? 0) + inc);
    }
  }
  return [...sums].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}
