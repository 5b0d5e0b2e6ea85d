/**
 * One time unit per latency metric on a page (TTFT, TPOT, ITL, E2E each): the TTFT chart, the TTFT
 * columns, tooltips and figures of one page all say "ms" or all say "s", so 9.9 s on a chart is
 * never 9,900 ms in the table under it; and each metric picks from its own values, so a TPOT of
 * 18.2 ms stays "18.2 ms" on a long-context page whose TTFTs are in seconds (never "0.0182 s").
 */

import { formatNonFinite, formatNumber, MISSING } from "./format";

/** The unit latencies are shown in: milliseconds or seconds. */
export type LatencyUnit = "ms" | "s";

/** From this median (ms) on, a page shows its latencies in seconds. */
export const SECONDS_FROM_MEDIAN_MS = 1000;

/**
 * From this largest value (ms) on, a page shows its latencies in seconds whatever the median: a
 * long-context TTFT of 30,000 ms drew an axis up to "30k" ms beside 40 ms ones; "30 s" and "0.04 s" read better.
 */
export const SECONDS_FROM_MAX_MS = 10_000;

/**
 * The unit for a page whose latencies (in ms) are `valuesMs`: "s" when the median of the finite,
 * non-negative values is at least {@link SECONDS_FROM_MEDIAN_MS} or the largest is at least
 * {@link SECONDS_FROM_MAX_MS}, else "ms" (also when there is no value). Null, NaN and ±∞ are ignored.
 */
export function pickLatencyUnit(valuesMs: Iterable<number | null | undefined>): LatencyUnit {
  const finite: number[] = [];
  for (const v of valuesMs)
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) finite.push(v);
  if (finite.length === 0) return "ms";
  finite.sort((a, b) => a - b);
  const mid = Math.floor(finite.length / 2);
  const median = finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
  return median >= SECONDS_FROM_MEDIAN_MS || finite.at(-1)! >= SECONDS_FROM_MAX_MS ? "s" : "ms";
}

/** A latency in ms converted to `unit` (÷ 1000 for seconds); null stays null, NaN/±∞ stay as they are. */
export function latencyIn(ms: number | null | undefined, unit: LatencyUnit): number | null {
  if (ms === null || ms === undefined) return null;
  return unit === "s" ? ms / 1000 : ms;
}

/** A latency (ms) as a number without unit in `unit`, for table cells under a "(ms)"/"(s)" header: "85.7", "1.23". */
export function formatLatencyValue(
  ms: number | null | undefined,
  unit: LatencyUnit,
  decimals?: number,
): string {
  return formatNumber(latencyIn(ms, unit), decimals);
}

/** A latency (ms) with the page's unit: "85.7 ms", "0.0857 s", "9.9 s"; "—" for null, "NaN"/"∞" without unit. */
export function formatLatencyIn(ms: number | null | undefined, unit: LatencyUnit): string {
  if (ms === null || ms === undefined) return MISSING;
  const nf = formatNonFinite(ms);
  if (nf !== null) return Number.isNaN(ms) ? nf : `${nf} ${unit}`;
  return `${formatLatencyValue(ms, unit)} ${unit}`;
}

/** The latency fields (ms) of a benchmark point that a run page shows: TTFT, TPOT, ITL and E2E, each mean, median and p99. */
export const POINT_LATENCY_FIELDS = [
  "ttftMsMean",
  "ttftMsMedian",
  "ttftMsP99",
  "tpotMsMean",
  "tpotMsMedian",
  "tpotMsP99",
  "itlMsMean",
  "itlMsMedian",
  "itlMsP99",
  "e2eMsMean",
  "e2eMsMedian",
  "e2eMsP99",
] as const;

/** Every latency (ms) of `points` in {@link POINT_LATENCY_FIELDS}, for {@link pickLatencyUnit}. */
export function pointLatenciesMs(
  points: ReadonlyArray<Partial<Record<(typeof POINT_LATENCY_FIELDS)[number], number | null>>>,
): number[] {
  const out: number[] = [];
  for (const p of points)
    for (const f of POINT_LATENCY_FIELDS) if (typeof p[f] === "number") out.push(p[f]);
  return out;
}

/** The latency metrics that each get their own unit. */
export type LatencyMetric = "ttft" | "tpot" | "itl" | "e2e";

/** The unit of each latency metric on one page. */
export type LatencyUnits = Record<LatencyMetric, LatencyUnit>;

/** Every latency (ms) of `metric` (mean, median and p99) in `points`. */
export function metricLatenciesMs(
  points: ReadonlyArray<Partial<Record<(typeof POINT_LATENCY_FIELDS)[number], number | null>>>,
  metric: LatencyMetric,
): number[] {
  const fields = POINT_LATENCY_FIELDS.filter((f) => f.startsWith(metric));
  const out: number[] = [];
  for (const p of points) for (const f of fields) if (typeof p[f] === "number") out.push(p[f]);
  return out;
}

/** One unit per latency metric of `points`, each from its own values ({@link pickLatencyUnit}). */
export function pickLatencyUnits(
  points: ReadonlyArray<Partial<Record<(typeof POINT_LATENCY_FIELDS)[number], number | null>>>,
): LatencyUnits {
  return {
    ttft: pickLatencyUnit(metricLatenciesMs(points, "ttft")),
    tpot: pickLatencyUnit(metricLatenciesMs(points, "tpot")),
    itl: pickLatencyUnit(metricLatenciesMs(points, "itl")),
    e2e: pickLatencyUnit(metricLatenciesMs(points, "e2e")),
  };
}
