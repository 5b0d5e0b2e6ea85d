import { formatCount, formatNumber } from "../format";
import type { BenchmarkPointView } from "../view-models";
import {
  groupSeries,
  isFailedPoint,
  plottable,
  sweepPointLabel,
  sweepScale,
  sweepX,
} from "./benchmark-sweep";
import { formatContextLength, splitScenarios } from "./long-context";

/**
 * Projections from a benchmark: "N samples × average output tokens at a measured aggregate output
 * rate = how many hours". Time = N × tokens per sample ÷ aggregate output tok/s at one measured
 * level. Only output tokens are counted (prefill is inside the measured rate: the level ran with
 * its own input length). Pure functions; numbers are formatted with Intl.NumberFormat (lib/format).
 */

/** Samples projected unless the user says otherwise. */
export const DEFAULT_PROJECTION_SAMPLES = 100_000;

/** One level a projection can use: a successful point with a finite, positive aggregate output rate. */
export interface ProjectionLevel {
  /** The point's key (stable across refetches). */
  key: string;
  /** "C=32" (with the series label when the run has several series), or "C=1 · 60K in" for a long-context level. */
  label: string;
  /** Aggregate output tok/s measured at this level. */
  outputTokPerS: number;
  point: BenchmarkPointView;
}

/**
 * The levels of a run a projection can use, in chart order (series by series, then by load).
 * Throughput-sweep points when the run has any; else its long-context points (a run that only
 * measured long prompts projects at those).
 */
export function projectionLevels(
  points: readonly BenchmarkPointView[],
  config: Record<string, unknown> = {},
): ProjectionLevel[] {
  const { sweep, longContext } = splitScenarios(points);
  const usable = (p: BenchmarkPointView) =>
    !isFailedPoint(p) && (plottable(p.outputTokPerS) ?? 0) > 0;
  if (sweep.some(usable)) {
    const scale = sweepScale(sweep);
    const groups = groupSeries(sweep, config);
    return groups.flatMap((g) =>
      g.points
        .filter(usable)
        .map((p) => ({ p, x: sweepX(p, scale) }))
        .sort(
          (a, b) =>
            (a.x ?? Number.POSITIVE_INFINITY) - (b.x ?? Number.POSITIVE_INFINITY) ||
            a.p.ord - b.p.ord,
        )
        .map(({ p, x }) => {
          const at =
            x === null
              ? p.concurrency === null
                ? "C=∞"
                : `C=${formatCount(p.concurrency)}`
              : sweepPointLabel(x, scale);
          return {
            key: p.key,
            label: g.label ? `${at} · ${g.label}` : at,
            outputTokPerS: p.outputTokPerS as number,
            point: p,
          };
        }),
    );
  }
  return longContext
    .filter(usable)
    .sort(
      (a, b) =>
        (a.concurrency ?? 0) - (b.concurrency ?? 0) ||
        (a.inputLen ?? 0) - (b.inputLen ?? 0) ||
        a.ord - b.ord,
    )
    .map((p) => ({
      key: p.key,
      label: `${p.concurrency === null ? "C=∞" : `C=${formatCount(p.concurrency)}`} · ${p.inputLen === null ? "?" : formatContextLength(p.inputLen)} in`,
      outputTokPerS: p.outputTokPerS as number,
      point: p,
    }));
}

/** The level with the highest aggregate output tok/s (the first one on a tie); null without levels. */
export function bestLevel(levels: readonly ProjectionLevel[]): ProjectionLevel | null {
  let best: ProjectionLevel | null = null;
  for (const l of levels) if (!best || l.outputTokPerS > best.outputTokPerS) best = l;
  return best;
}

/** Where the default output tokens per sample come from, with a sentence saying so. */
export interface OutputTokensDefault {
  /** Mean output tokens per sample. */
  tokens: number;
  /** `measured`: Σ output tokens ÷ Σ completed requests; `configured`: mean of the points' output lengths. */
  source: "measured" | "configured";
  /** e.g. "measured: 160,347 output tokens ÷ 300 completed requests over 1 point". */
  detail: string;
}

function totalOutputTokens(p: BenchmarkPointView): number | null {
  // SGLang bench_serving and vLLM bench serve rows (`total_output` in SGLang's refactored writer).
  const v = p.raw.total_output_tokens ?? p.raw.total_output;
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

/**
 * The run's mean output length per sample, from the points the projection uses (see
 * {@link projectionLevels}). Preferred: the completed-request totals, Σ total output tokens ÷ Σ
 * completed requests, when every successful point's source row has them (SGLang, vLLM); else the
 * mean of the points' output lengths (configured, or the importer's per-point mean) weighted by
 * completed requests. Null when no point says.
 */
export function defaultOutputTokens(
  points: readonly BenchmarkPointView[],
): OutputTokensDefault | null {
  const { sweep, longContext } = splitScenarios(points);
  const ok = (ps: BenchmarkPointView[]) => ps.filter((p) => !isFailedPoint(p));
  const pool = ok(sweep).length > 0 ? ok(sweep) : ok(longContext);
  const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;

  const totals = pool.map((p) => ({ out: totalOutputTokens(p), completed: p.completed }));
  if (
    pool.length > 0 &&
    totals.every((t) => t.out !== null && t.completed !== null && t.completed > 0)
  ) {
    const out = totals.reduce((s, t) => s + (t.out as number), 0);
    const completed = totals.reduce((s, t) => s + (t.completed as number), 0);
    return {
      tokens: out / completed,
      source: "measured",
      detail: `measured: ${formatCount(out)} output tokens ÷ ${plural(completed, "completed request")} over ${plural(pool.length, "point")}`,
    };
  }
  const withLen = pool.filter((p) => p.outputLen !== null && p.outputLen > 0);
  if (withLen.length === 0) return null;
  const weight = (p: BenchmarkPointView) =>
    p.completed !== null && p.completed > 0 ? p.completed : 1;
  const w = withLen.reduce((s, p) => s + weight(p), 0);
  const tokens = withLen.reduce((s, p) => s + (p.outputLen as number) * weight(p), 0) / w;
  const lens = new Set(withLen.map((p) => p.outputLen));
  return {
    tokens,
    source: "configured",
    detail:
      lens.size === 1
        ? `output length of the ${plural(withLen.length, "point")}`
        : `mean output length of ${plural(withLen.length, "point")}, weighted by completed requests`,
  };
}

/** A projected job: inputs and the time it takes. */
export interface Projection {
  samples: number;
  outputTokPerSample: number;
  /** samples × outputTokPerSample. */
  totalTokens: number;
  /** Aggregate output tok/s the job runs at. */
  outputTokPerS: number;
  seconds: number;
  hours: number;
  days: number;
}

/**
 * Time to generate `samples` × `outputTokPerSample` output tokens at `outputTokPerS` aggregate.
 * @throws RangeError when an input is not a finite positive number.
 */
export function project(
  samples: number,
  outputTokPerSample: number,
  outputTokPerS: number,
): Projection {
  for (const [name, v] of [
    ["samples", samples],
    ["outputTokPerSample", outputTokPerSample],
    ["outputTokPerS", outputTokPerS],
  ] as const) {
    if (!Number.isFinite(v) || v <= 0)
      throw new RangeError(`${name} must be a finite positive number, got ${v}`);
  }
  const totalTokens = samples * outputTokPerSample;
  const seconds = totalTokens / outputTokPerS;
  return {
    samples,
    outputTokPerSample,
    totalTokens,
    outputTokPerS,
    seconds,
    hours: seconds / 3600,
    days: seconds / 86_400,
  };
}

/** Hours as shown: "142.5 h" (one decimal; two below 1 h). */
export function formatHours(hours: number): string {
  return `${formatNumber(hours, Math.abs(hours) < 1 ? 2 : 1)} h`;
}

/** Days as shown: "5.94 days", "1.00 day" (two decimals; three below 0.1). */
export function formatDays(days: number): string {
  const text = formatNumber(days, Math.abs(days) < 0.1 ? 3 : 2);
  return `${text} ${text === "1.00" ? "day" : "days"}`;
}

/**
 * The arithmetic in numbers, e.g.
 * "100,000 × 1,024 tok = 102,400,000 tok ÷ 199.6 tok/s = 513,026 s = 142.5 h = 5.94 days".
 * Each figure is rounded for display only; every step is computed from the exact inputs.
 */
export function projectionArithmetic(p: Projection): string {
  const perSample = Number.isInteger(p.outputTokPerSample)
    ? formatCount(p.outputTokPerSample)
    : formatNumber(p.outputTokPerSample, 1);
  return `${formatCount(p.samples)} × ${perSample} tok = ${formatCount(p.totalTokens)} tok ÷ ${formatNumber(p.outputTokPerS)} tok/s = ${formatCount(p.seconds)} s = ${formatHours(p.hours)} = ${formatDays(p.days)}`;
}

/** Largest number of samples or tokens per sample the panel takes (10¹²): beyond it the figures stop meaning anything. */
export const MAX_PROJECTION_INPUT = 1e12;

/**
 * Parses a positive number typed by a person: "100000", "100,000", "100 000", "1e5", "1_024".
 * Null for anything else (empty, zero, negative, not a number, above {@link MAX_PROJECTION_INPUT}).
 */
export function parsePositiveNumber(text: string): number | null {
  const cleaned = text.trim().replace(/[,_\s\u00a0\u202f]/g, "");
  if (!/^(\d+\.?\d*|\.\d+)(e\d+)?$/i.test(cleaned)) return null;
  const v = Number(cleaned);
  return Number.isFinite(v) && v > 0 && v <= MAX_PROJECTION_INPUT ? v : null;
}
