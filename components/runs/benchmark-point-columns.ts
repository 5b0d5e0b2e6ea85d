import { autoDecimals, formatCount, formatNumber, MISSING } from "@/lib/format";
import { latencyIn, type LatencyMetric, type LatencyUnits } from "@/lib/latency-unit";
import type { BenchmarkPointView } from "@/lib/view-models";

/** One numeric column of the point table: its header, hover title, value of a point and format. */
export interface Column {
  id: string;
  header: string;
  title?: string;
  value: (p: BenchmarkPointView) => number | null;
  format?: (v: number | null) => string;
}

/** Columns under one group header (e.g. "TTFT (ms)"). */
export interface ColumnGroup {
  header: string;
  columns: Column[];
}

const num = (v: number | null) => formatNumber(v);

/**
 * One precision per column (from its largest finite value) so decimals line up down the column:
 * 0.026 / 0.180 / 0.858 rather than 0.026 / 0.18 / 0.858, and 85.0 next to 93.5.
 */
export function columnFormat(values: ReadonlyArray<number | null>): (v: number | null) => string {
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (finite.length === 0 || finite.every(Number.isInteger)) return num;
  const decimals = autoDecimals(Math.max(...finite.map(Math.abs)));
  return (v) => formatNumber(v, decimals);
}

const stat = (label: string, m: "Mean" | "Median" | "P99") => ({
  header: m === "Median" ? "p50" : m === "P99" ? "p99" : "mean",
  title: `${label} ${m.toLowerCase()}`,
});

function latencyGroup(
  units: LatencyUnits,
  metric: LatencyMetric,
  name: string,
  label: string,
  mean: keyof BenchmarkPointView,
  median: keyof BenchmarkPointView,
  p99: keyof BenchmarkPointView,
): ColumnGroup {
  const unit = units[metric];
  const get = (k: keyof BenchmarkPointView) => (p: BenchmarkPointView) =>
    latencyIn(p[k] as number | null, unit);
  return {
    header: `${name} (${unit})`,
    columns: [
      { id: String(mean), ...stat(label, "Mean"), value: get(mean) },
      { id: String(median), ...stat(label, "Median"), value: get(median) },
      { id: String(p99), ...stat(label, "P99"), value: get(p99) },
    ],
  };
}

/** The table's column groups, each latency metric in its own unit of `units` (the page's units). */
export const metricGroups = (units: LatencyUnits): ColumnGroup[] => [
  {
    header: "Requests",
    columns: [
      {
        id: "completed",
        header: "done",
        title: "Completed requests",
        value: (p) => p.completed,
        format: formatCount,
      },
      {
        id: "failed",
        header: "failed",
        title: "Failed requests",
        value: (p) => p.failed,
        format: formatCount,
      },
      {
        id: "durationS",
        header: "dur. (s)",
        title: "Benchmark duration in seconds",
        value: (p) => p.durationS,
      },
      {
        id: "requestThroughput",
        header: "req/s",
        title: "Completed requests per second",
        value: (p) => p.requestThroughput,
      },
    ],
  },
  {
    header: "Throughput (tok/s)",
    columns: [
      {
        id: "outputTokPerS",
        header: "output",
        title: "Aggregate output tokens per second",
        value: (p) => p.outputTokPerS,
      },
      {
        id: "totalTokPerS",
        header: "total",
        title: "Aggregate input + output tokens per second",
        value: (p) => p.totalTokPerS,
      },
    ],
  },
  latencyGroup(
    units,
    "ttft",
    "TTFT",
    "Time to first token",
    "ttftMsMean",
    "ttftMsMedian",
    "ttftMsP99",
  ),
  latencyGroup(
    units,
    "tpot",
    "TPOT",
    "Time per output token",
    "tpotMsMean",
    "tpotMsMedian",
    "tpotMsP99",
  ),
  latencyGroup(units, "itl", "ITL", "Inter-token latency", "itlMsMean", "itlMsMedian", "itlMsP99"),
  latencyGroup(units, "e2e", "E2E", "End-to-end latency", "e2eMsMean", "e2eMsMedian", "e2eMsP99"),
  {
    header: "Spec.",
    columns: [
      {
        id: "acceptLength",
        header: "τ",
        title: "Acceptance length τ (tokens per verify step)",
        value: (p) => p.acceptLength,
      },
    ],
  },
];

/** Swept parameters named in `config.sweep`, and whether the points repeat runs (`raw.run_number`). */
export function sweepColumns(
  points: readonly BenchmarkPointView[],
  config: Record<string, unknown> | undefined,
): { keys: string[]; showRunNumber: boolean } {
  const sweep = config?.sweep;
  const keys =
    sweep !== null && typeof sweep === "object" && !Array.isArray(sweep) ? Object.keys(sweep) : [];
  const runNumbers = new Set(
    points.map((p) => p.raw.run_number).filter((v) => typeof v === "number"),
  );
  return { keys, showRunNumber: runNumbers.size > 1 };
}

/** A raw (`point.raw`) value as cell text: missing mark, JSON for objects, else the string. */
export function rawText(value: unknown): string {
  if (value === undefined || value === null) return MISSING;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
