import { formatCompact, formatCount } from "../format";
import type { BenchmarkPointView } from "../view-models";

/**
 * Pure math behind the benchmark charts and headline figures: which axis a sweep varies, where a
 * point sits on it, which points form one series, and the figures people quote
 * ("26.5 tok/s single request, 577.8 tok/s aggregate peak at C=32").
 */

/** The quantity a sweep varies: the concurrency cap, or (when every concurrency is null) the offered request rate. */
export type SweepAxisKind = "concurrency" | "requestRate";

/** Axis of a sweep plus where an unbounded request rate ("max") is drawn; null when none. */
export interface SweepScale {
  kind: SweepAxisKind;
  unboundedX: number | null;
}

/** True for a FAILED point: it finished no request (completed === 0). Never plot it as 0 tok/s. */
export function isFailedPoint(p: Pick<BenchmarkPointView, "completed">): boolean {
  return p.completed === 0;
}

/** Per-request decode speed in tok/s, 1000 / median TPOT (ms); null without a finite positive TPOT. */
export function decodeTokPerS(p: Pick<BenchmarkPointView, "tpotMsMedian">): number | null {
  const t = p.tpotMsMedian;
  return t !== null && Number.isFinite(t) && t > 0 ? 1000 / t : null;
}

/** `v` when it is a finite number, else null (NaN/∞ are shown in tables, never plotted). */
export function plottable(v: number | null | undefined): number | null {
  return v !== null && v !== undefined && Number.isFinite(v) ? v : null;
}

/** Axis and "max" position for a set of points (pass all points drawn on one chart). */
export function sweepScale(points: readonly BenchmarkPointView[]): SweepScale {
  // Concurrency sweeps are the common case, so an empty run (no points yet) gets that axis too.
  if (points.length === 0 || points.some((p) => p.concurrency !== null))
    return { kind: "concurrency", unboundedX: null };
  let maxRate = 0;
  let unbounded = false;
  for (const p of points) {
    if (p.requestRateUnbounded) unbounded = true;
    else if (p.requestRate !== null && Number.isFinite(p.requestRate) && p.requestRate > maxRate)
      maxRate = p.requestRate;
  }
  // One log2 step right of the highest finite rate, so "max" reads as "beyond everything measured".
  return { kind: "requestRate", unboundedX: unbounded ? (maxRate > 0 ? maxRate * 2 : 1) : null };
}

/** Position of a point on the sweep axis (> 0, for a log scale); null when it cannot be placed. */
export function sweepX(p: BenchmarkPointView, scale: SweepScale): number | null {
  if (scale.kind === "concurrency")
    return p.concurrency !== null && p.concurrency > 0 ? p.concurrency : null;
  if (p.requestRateUnbounded) return scale.unboundedX;
  return p.requestRate !== null && Number.isFinite(p.requestRate) && p.requestRate > 0
    ? p.requestRate
    : null;
}

/** Tick text for an axis position: "32", "0.5", or "max" for the unbounded rate. */
export function sweepTickLabel(x: number, scale: SweepScale): string {
  if (scale.kind === "requestRate" && scale.unboundedX !== null && x === scale.unboundedX)
    return "max";
  return Number.isInteger(x) ? formatCount(x) : formatCompact(x);
}

/** Full text for a position in tooltips and figures: "C=32", "4 req/s", "max rate". */
export function sweepPointLabel(x: number, scale: SweepScale): string {
  if (scale.kind === "concurrency") return `C=${formatCount(x)}`;
  if (scale.unboundedX !== null && x === scale.unboundedX) return "max rate";
  return `${sweepTickLabel(x, scale)} req/s`;
}

/** Axis title with its unit. */
export function sweepAxisTitle(scale: SweepScale): string {
  return scale.kind === "concurrency"
    ? "Concurrency (requests in flight, log₂)"
    : "Request rate (req/s, log₂)";
}

/**
 * Tick positions: every distinct position when there are at most 12 (the sweep's own levels,
 * e.g. 1, 2, 4, …, 100), else the powers of two across the range plus "max".
 */
export function sweepTicks(xs: readonly number[], scale: SweepScale): number[] {
  const distinct = [...new Set(xs.filter((x) => x > 0))].sort((a, b) => a - b);
  if (distinct.length <= 12) return distinct;
  const finite = distinct.filter((x) => x !== scale.unboundedX);
  const lo = Math.floor(Math.log2(finite[0] ?? 1));
  const hi = Math.ceil(Math.log2(finite[finite.length - 1] ?? 1));
  const step = Math.max(1, Math.ceil((hi - lo + 1) / 12));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += step) ticks.push(2 ** e);
  if (scale.unboundedX !== null) ticks.push(scale.unboundedX);
  return ticks;
}

/** Points that share a dataset, input/output length and varying config facts: one chart series. */
export interface SeriesGroup {
  key: string;
  /** What sets this group apart ("sharegpt · 1,024 in / 1,024 out"); "" when there is one group. */
  label: string;
  points: BenchmarkPointView[];
}

const LENGTH_KEYS = new Set(["dataset", "inputLen", "outputLen", "sourceFiles"]);

/**
 * Leaf names of run-config entries whose value is an array of differing values (the importers
 * merge per-row facts that way, e.g. vLLM `metadata.deployment`): points are split by them too
 * when their raw row carries the same key.
 */
export function varyingConfigKeys(config: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (obj: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(obj)) {
      if (LENGTH_KEYS.has(k)) continue;
      if (
        Array.isArray(v) &&
        v.length > 1 &&
        v.every((x) => typeof x === "string" || typeof x === "number")
      )
        out.push(k);
      else if (v && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>);
    }
  };
  walk(config);
  return out;
}

interface GroupParts {
  scenario: string;
  dataset: string;
  lengths: string;
  facts: string;
}

function lengthsText(p: BenchmarkPointView): string {
  if (p.inputLen === null && p.outputLen === null) return "";
  return `${formatCount(p.inputLen)} in / ${formatCount(p.outputLen)} out`;
}

/**
 * Datasets whose points each have their own input/output length (ShareGPT-style runs report the
 * measured mean length of each level, e.g. 224/189 then 225/192): those lengths describe the
 * sample, not the experiment, so they must not split the sweep into one-point series.
 */
function datasetsWithPerPointLengths(points: readonly BenchmarkPointView[]): Set<string> {
  const byDataset = new Map<string, { n: number; lengths: Set<string> }>();
  for (const p of points) {
    const d = byDataset.get(p.dataset ?? "") ?? { n: 0, lengths: new Set<string>() };
    d.n++;
    d.lengths.add(lengthsText(p));
    byDataset.set(p.dataset ?? "", d);
  }
  return new Set(
    [...byDataset].filter(([, d]) => d.n > 1 && d.lengths.size === d.n).map(([k]) => k),
  );
}

/**
 * Splits points into series, one per combination of scenario, dataset, input/output length and
 * varying config facts (see {@link varyingConfigKeys}), in order of first appearance. Labels name
 * only the parts that differ between groups.
 */
export function groupSeries(
  points: readonly BenchmarkPointView[],
  config: Record<string, unknown> = {},
): SeriesGroup[] {
  const factKeys = varyingConfigKeys(config);
  const perPointLengths = datasetsWithPerPointLengths(points);
  const groups = new Map<string, { parts: GroupParts; points: BenchmarkPointView[] }>();
  for (const p of points) {
    const facts = factKeys
      .map((k) => {
        const v = p.raw[k];
        return typeof v === "string" || typeof v === "number" ? `${k}: ${v}` : "";
      })
      .filter(Boolean)
      .join(" · ");
    const lengths = perPointLengths.has(p.dataset ?? "") ? "lengths vary" : lengthsText(p);
    const parts: GroupParts = { scenario: p.scenario, dataset: p.dataset ?? "", lengths, facts };
    const key = JSON.stringify(parts);
    const g = groups.get(key);
    if (g) g.points.push(p);
    else groups.set(key, { parts, points: [p] });
  }
  const all = [...groups.values()];
  const varies = (f: keyof GroupParts) => new Set(all.map((g) => g.parts[f])).size > 1;
  const shown = (["scenario", "dataset", "lengths", "facts"] as const).filter(varies);
  return [...groups.entries()].map(([key, g]) => ({
    key,
    label: shown
      .map(
        (f) =>
          g.parts[f] || (f === "dataset" ? "no dataset" : f === "lengths" ? "unknown lengths" : ""),
      )
      .filter(Boolean)
      .join(" · "),
    points: g.points,
  }));
}

/** One plotted position: a successful point at `x` with its finite throughput figures. */
export interface SweepDatum {
  x: number;
  point: BenchmarkPointView;
  outputTokPerS: number | null;
  decodeTokPerS: number | null;
}

/** The plottable points of a series, by x: failed points and points without a position are left out. */
export function plotData(points: readonly BenchmarkPointView[], scale: SweepScale): SweepDatum[] {
  const out: SweepDatum[] = [];
  for (const p of points) {
    if (isFailedPoint(p)) continue;
    const x = sweepX(p, scale);
    if (x === null) continue;
    out.push({
      x,
      point: p,
      outputTokPerS: plottable(p.outputTokPerS),
      decodeTokPerS: plottable(decodeTokPerS(p)),
    });
  }
  return out.sort((a, b) => a.x - b.x);
}

/** A figure taken at one sweep position. */
export interface FigureAt {
  value: number;
  x: number;
  point: BenchmarkPointView;
}

/** Headline figures of one series. */
export interface Headline {
  /** Aggregate output tok/s at the lowest load (single request when that is C=1). */
  lowest: FigureAt | null;
  /** Highest aggregate output tok/s and where it occurs. */
  peak: FigureAt | null;
  /** Per-request decode tok/s (1000 / median TPOT) at the peak, when TPOT was measured. */
  decodeAtPeak: number | null;
  /** Acceptance length τ range over successful points, when speculative decoding reported it. */
  accept: { min: number; max: number } | null;
  okCount: number;
  failedCount: number;
}

/**
 * The note under "Per-request decode at peak": "1000 / median TPOT" when it could be computed, "median
 * TPOT 0 ms" when TPOT was measured as exactly 0 (a measurement, not a missing value: decode speed
 * has no finite value then), "TPOT not measured" when the peak point has none, else `none`.
 */
export function decodeAtPeakNote(h: Pick<Headline, "peak" | "decodeAtPeak">, none: string): string {
  if (h.decodeAtPeak !== null) return "1000 / median TPOT";
  if (!h.peak) return none;
  return h.peak.point.tpotMsMedian === 0 ? "median TPOT 0 ms" : "TPOT not measured";
}

/** Computes the headline figures of a series (failed and non-finite points never count). */
export function headline(points: readonly BenchmarkPointView[], scale: SweepScale): Headline {
  const data = plotData(points, scale).filter((d) => d.outputTokPerS !== null);
  let lowest: FigureAt | null = null;
  let peak: FigureAt | null = null;
  for (const d of data) {
    const v = d.outputTokPerS as number;
    if (!lowest || d.x < lowest.x) lowest = { value: v, x: d.x, point: d.point };
    if (!peak || v > peak.value) peak = { value: v, x: d.x, point: d.point };
  }
  const taus = points
    .filter((p) => !isFailedPoint(p))
    .map((p) => plottable(p.acceptLength))
    .filter((v): v is number => v !== null);
  const failedCount = points.filter(isFailedPoint).length;
  return {
    lowest,
    peak,
    decodeAtPeak: peak ? plottable(decodeTokPerS(peak.point)) : null,
    accept: taus.length ? { min: Math.min(...taus), max: Math.max(...taus) } : null,
    okCount: points.length - failedCount,
    failedCount,
  };
}
