import { columnNumberFormat, pickDurationUnit, type DurationUnit } from "@/lib/column-format";
import { metricLabel } from "@/lib/metric-labels";
import { configValueAt } from "@/lib/run-list-columns";
import type { RunGroupSummary, RunSummary } from "@/lib/view-models";

/** How the run table's figure columns print: one duration unit and one tok/s precision for the page. */
export interface RunColumnFormats {
  durationUnit: DurationUnit;
  /** A peak output tok/s as a bare cell under "Peak output (tok/s)": "941.0" beside "958.6". */
  peak: (tokPerS: number | null | undefined) => string;
  /** Per metric column (`metric.<key>`): one precision for the column's latest values. */
  metric: Record<string, (value: number | null | undefined) => string>;
  /** Per config column (`config.<path>`): true when every value present is a number (right-aligned, header too). */
  numericConfig: Record<string, boolean>;
}

/**
 * One metric column's cell format: the key's scale applied first (a 0..1 fraction under "KV cache (%)"
 * prints 19.0, not 0.19), then one precision for all of the column's `values`.
 */
export function metricColumnFormat(
  key: string,
  values: Iterable<number | null | undefined>,
): (value: number | null | undefined) => string {
  const scale = metricLabel(key).scale ?? 1;
  const scaled = (v: number | null | undefined) => (typeof v === "number" ? v * scale : v);
  const format = columnNumberFormat([...values].map(scaled));
  return (v) => format(scaled(v));
}

/** Whether a config column holds numbers only (at least one; runs without the key do not count). */
export function isNumericColumn(values: Iterable<unknown>): boolean {
  let numbers = 0;
  for (const v of values) {
    if (v === undefined || v === null) continue;
    if (typeof v !== "number") return false;
    numbers++;
  }
  return numbers > 0;
}

/**
 * A run's duration in seconds as the table shows it: the stored duration of an ended run, the time
 * since its start while running (whole seconds, at `nowMs`), and the time to its last push when stale.
 */
export function runDurationS(
  run: Pick<RunSummary, "state" | "startedAt" | "endedAt" | "lastPushAt" | "durationS">,
  nowMs: number,
): number | null {
  if (!run.endedAt && run.state === "running")
    return Math.floor((nowMs - Date.parse(run.startedAt)) / 1000);
  if (!run.endedAt && run.state === "stale")
    return (Date.parse(run.lastPushAt) - Date.parse(run.startedAt)) / 1000;
  return run.durationS;
}

/** The column formats of one page of runs (and its groups' best peaks), from all of its values; `metricKeys`/`configKeys`: the metric and config columns shown. */
export function runColumnFormats(
  runs: readonly RunSummary[],
  groups: readonly RunGroupSummary[],
  nowMs: number,
  metricKeys: readonly string[] = [],
  configKeys: readonly string[] = [],
): RunColumnFormats {
  return {
    metric: Object.fromEntries(
      metricKeys.map((k) => [
        k,
        metricColumnFormat(
          k,
          runs.map((r) => r.metrics?.[k]),
        ),
      ]),
    ),
    numericConfig: Object.fromEntries(
      configKeys.map((k) => [k, isNumericColumn(runs.map((r) => configValueAt(r.config, k)))]),
    ),
    durationUnit: pickDurationUnit(runs.map((r) => runDurationS(r, nowMs))),
    peak: columnNumberFormat([
      ...runs.map((r) => r.peakOutputTokPerS),
      ...groups.map((g) => g.bestPeakOutputTokPerS),
    ]),
  };
}
