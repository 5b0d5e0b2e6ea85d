import { formatCount } from "../format";
import type { BenchmarkPointView } from "../view-models";
import {
  decodeTokPerS,
  isFailedPoint,
  plottable,
  varyingConfigKeys,
  type SweepDatum,
} from "./benchmark-sweep";

/**
 * Long-context benchmarks: points pushed with `scenario: "long-context"` (one point per context
 * length, e.g. 30K / 60K / 100K input tokens, usually at C=1), charted as TTFT and per-request
 * decode tok/s by context length. They never enter the concurrency sweep charts (their levels
 * would split the sweep into one-point series per input length).
 *
 * Series: one per concurrency, dataset and per-row config fact (see `varyingConfigKeys`); the
 * output length splits series only when one context length was measured with several output
 * lengths (otherwise it is a property of each point, shown in tooltips). Pure functions.
 */

/** The `scenario` value of a long-context point (protocol `BENCHMARK_SCENARIOS`). */
export const LONG_CONTEXT_SCENARIO = "long-context";

/** True when the point belongs to the long-context scenario. */
export function isLongContextPoint(p: Pick<BenchmarkPointView, "scenario">): boolean {
  return p.scenario === LONG_CONTEXT_SCENARIO;
}

/** Splits a run's points into the concurrency sweep (every other scenario) and the long-context points, order kept. */
export function splitScenarios(points: readonly BenchmarkPointView[]): {
  sweep: BenchmarkPointView[];
  longContext: BenchmarkPointView[];
} {
  const sweep: BenchmarkPointView[] = [];
  const longContext: BenchmarkPointView[] = [];
  for (const p of points) (isLongContextPoint(p) ? longContext : sweep).push(p);
  return { sweep, longContext };
}

/** How many points a run page's point table holds: successful and failed, and of those how many are long-context. */
export interface PointTally {
  ok: number;
  failed: number;
  /** Long-context points (ok or failed) among them. */
  longContext: number;
}

/** Counts every point (sweep and long-context alike), so a headline and the table under it agree. */
export function pointTally(points: readonly BenchmarkPointView[]): PointTally {
  let failed = 0;
  let longContext = 0;
  for (const p of points) {
    if (isFailedPoint(p)) failed++;
    if (isLongContextPoint(p)) longContext++;
  }
  return { ok: points.length - failed, failed, longContext };
}

/**
 * One plotted long-context point: `x` is the context length (input tokens); TTFT in ms, decode
 * tok/s = 1000 / median TPOT (per request), output tok/s aggregate. Non-finite values are null.
 * Shaped like a sweep datum so the sweep chart helpers can merge it into chart rows.
 */
export interface LongContextDatum extends SweepDatum {
  ttftMsMedian: number | null;
  ttftMsP99: number | null;
}

/** One line on the long-context charts. */
export interface LongContextSeries {
  key: string;
  /** What sets this series apart ("C=4", "C=1 · sharegpt"); "" when the run has one series. */
  label: string;
  /** Concurrency shared by the series' points (null: unbounded or not reported). */
  concurrency: number | null;
  /** Successful points with a context length, by context length (then source order). */
  data: LongContextDatum[];
  /** All of the series' points, plotted or not, in the same order as `data` first. */
  points: BenchmarkPointView[];
  /** Points that finished no request (never plotted). */
  failedCount: number;
  /** Successful points without an input length (cannot be placed). */
  unplacedCount: number;
}

interface Parts {
  concurrency: string;
  dataset: string;
  facts: string;
  output: string;
}

function factsOf(p: BenchmarkPointView, factKeys: readonly string[]): string {
  return factKeys
    .map((k) => {
      const v = p.raw[k];
      return typeof v === "string" || typeof v === "number" ? `${k}: ${v}` : "";
    })
    .filter(Boolean)
    .join(" · ");
}

/** The long-context datum of a point, or null when it is failed or has no positive input length. */
export function longContextDatum(p: BenchmarkPointView): LongContextDatum | null {
  if (isFailedPoint(p) || p.inputLen === null || p.inputLen <= 0) return null;
  return {
    x: p.inputLen,
    point: p,
    ttftMsMedian: plottable(p.ttftMsMedian),
    ttftMsP99: plottable(p.ttftMsP99),
    decodeTokPerS: plottable(decodeTokPerS(p)),
    outputTokPerS: plottable(p.outputTokPerS),
  };
}

/**
 * Groups the long-context points of `points` (other scenarios are ignored) into series, in order
 * of first appearance, and sorts each series by context length. `config` is the run's config
 * (for per-row facts such as vLLM `--metadata`).
 */
export function longContextSeries(
  points: readonly BenchmarkPointView[],
  config: Record<string, unknown> = {},
): LongContextSeries[] {
  const factKeys = varyingConfigKeys(config);
  const lc = points.filter(isLongContextPoint);
  const baseKey = (p: BenchmarkPointView) =>
    JSON.stringify([p.concurrency, p.dataset ?? "", factsOf(p, factKeys)]);
  // Output length splits a group only when it is what tells two points at one context length apart.
  const splitByOutput = new Set<string>();
  const seen = new Map<string, Set<number | null>>();
  for (const p of lc) {
    const k = `${baseKey(p)}|${p.inputLen}`;
    const outs = seen.get(k) ?? new Set<number | null>();
    outs.add(p.outputLen);
    seen.set(k, outs);
    if (outs.size > 1) splitByOutput.add(baseKey(p));
  }
  const groups = new Map<string, { parts: Parts; points: BenchmarkPointView[] }>();
  for (const p of lc) {
    const base = baseKey(p);
    const parts: Parts = {
      concurrency: p.concurrency === null ? "C=∞" : `C=${formatCount(p.concurrency)}`,
      dataset: p.dataset ?? "",
      facts: factsOf(p, factKeys),
      output: splitByOutput.has(base) ? `${formatCount(p.outputLen)} out` : "",
    };
    const key = JSON.stringify(parts);
    const g = groups.get(key);
    if (g) g.points.push(p);
    else groups.set(key, { parts, points: [p] });
  }
  const all = [...groups.values()];
  const varies = (f: keyof Parts) => new Set(all.map((g) => g.parts[f])).size > 1;
  const shown = (["concurrency", "dataset", "facts", "output"] as const).filter(varies);
  return [...groups.entries()].map(([key, g]) => {
    const data = g.points
      .map(longContextDatum)
      .filter((d): d is LongContextDatum => d !== null)
      .sort((a, b) => a.x - b.x || a.point.ord - b.point.ord);
    const plotted = new Set(data.map((d) => d.point.key));
    const failedCount = g.points.filter(isFailedPoint).length;
    return {
      key,
      label: shown
        .map((f) => g.parts[f] || (f === "dataset" ? "no dataset" : ""))
        .filter(Boolean)
        .join(" · "),
      concurrency: g.points[0]?.concurrency ?? null,
      data,
      points: [...data.map((d) => d.point), ...g.points.filter((p) => !plotted.has(p.key))],
      failedCount,
      unplacedCount: g.points.length - data.length - failedCount,
    };
  });
}

/** "30K", "100K", "128K" (131,072 = 128 × 1024), "1.5K", "512": a context length in tokens, for ticks. */
export function formatContextLength(tokens: number): string {
  if (!Number.isFinite(tokens)) return formatCount(tokens);
  if (tokens < 1000) return formatCount(tokens);
  // Binary sizes read as people say them (32,768 → "32K"); decimal ones as they are (30,000 → "30K").
  const k = tokens % 1024 === 0 && tokens % 1000 !== 0 ? tokens / 1024 : tokens / 1000;
  const text = Number.isInteger(k)
    ? String(k)
    : k >= 10
      ? k.toFixed(0)
      : k.toFixed(1).replace(/\.0$/, "");
  return `${text}K`;
}

/**
 * X axis of a long-context chart. `linear` when the measured lengths span less than a decade
 * (30K–100K: how TTFT grows with context reads straight from the line's shape, and the axis starts
 * at 0); `log2` from a tenfold span on (1K–128K would otherwise crowd the short lengths together).
 * Ticks sit at the measured lengths when there are at most 10 (plus 0 on a linear axis), else at
 * round values (linear) or powers of two (log2). `position` maps a length to the chart's coordinate (log2 of it on a log
 * axis), `domain` and `ticks` are in those coordinates.
 */
export interface ContextAxis {
  kind: "linear" | "log2";
  /** Tick positions (chart coordinates). */
  ticks: number[];
  domain: [number, number];
  /** Context length (tokens) → chart coordinate. */
  position: (tokens: number) => number;
  /** Chart coordinate → tick text ("30K"). */
  tickLabel: (position: number) => string;
}

/** Builds the context-length axis for all lengths drawn on one chart (see {@link ContextAxis}). */
export function contextAxis(lengths: readonly number[]): ContextAxis {
  const distinct = [...new Set(lengths.filter((x) => Number.isFinite(x) && x > 0))].sort(
    (a, b) => a - b,
  );
  const lo = distinct[0] ?? 1;
  const hi = distinct[distinct.length - 1] ?? 1;
  if (hi / lo < 10) {
    // The axis fits the data: from just below the shortest length, not from 0 (30K–100K would
    // otherwise leave the first 30 % of the plot empty). 5 % of the span of room on each side.
    const pad = hi > lo ? (hi - lo) * 0.05 : lo * 0.1;
    const ticks = distinct.length <= 10 ? distinct : roundTicks(lo, hi);
    return {
      kind: "linear",
      ticks,
      domain: [Math.max(0, lo - pad), hi + pad],
      position: (x) => x,
      tickLabel: formatContextLength,
    };
  }
  let ticks = distinct;
  if (distinct.length > 10) {
    ticks = [];
    const step = Math.max(
      1,
      Math.ceil((Math.ceil(Math.log2(hi)) - Math.floor(Math.log2(lo)) + 1) / 10),
    );
    for (let e = Math.floor(Math.log2(lo)); e <= Math.ceil(Math.log2(hi)); e += step)
      ticks.push(2 ** e);
  }
  const lticks = ticks.map(Math.log2);
  return {
    kind: "log2",
    ticks: lticks,
    domain: [Math.min(...lticks), Math.max(...lticks)],
    position: Math.log2,
    tickLabel: (lx) => formatContextLength(Math.round(2 ** lx)),
  };
}

/** About five round steps (1, 2, 2.5 or 5 × 10^k) inside [min, max]: the multiples of the step from `min` up to `max`. */
function roundTicks(min: number, max: number): number[] {
  const raw = (max - min) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(t);
  return ticks;
}

/** Axis title with its unit: "Context length (input tokens)" plus ", log₂" on a log axis. */
export function contextAxisTitle(axis: Pick<ContextAxis, "kind">): string {
  return axis.kind === "log2"
    ? "Context length (input tokens, log₂)"
    : "Context length (input tokens)";
}
