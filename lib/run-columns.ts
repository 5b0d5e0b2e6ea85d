import { columnNumberFormat, pickDurationUnit, type DurationUnit } from "@/lib/column-format";
import type { RunGroupSummary, RunSummary } from "@/lib/view-models";

/** How the run table's figure columns print: one duration unit and one tok/s precision for the page. */
export interface RunColumnFormats {
  durationUnit: DurationUnit;
  /** A peak output tok/s as a bare cell under "Peak output (tok/s)": "941.0" beside "958.6". */
  peak: (tokPerS: number | null | undefined) => string;
  /** Per metric column (`metric.<key>`): one precision for the column's latest values. */
  metric: Record<string, (value: number | null | undefined) => string>;
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

/** The column formats of one page of runs (and its groups' best peaks), from all of its values; `metricKeys`: the metric columns shown. */
export function runColumnFormats(
  runs: readonly RunSummary[],
  groups: readonly RunGroupSummary[],
  nowMs: number,
  metricKeys: readonly string[] = [],
): RunColumnFormats {
  return {
    metric: Object.fromEntries(
      metricKeys.map((k) => [k, columnNumberFormat(runs.map((r) => r.metrics?.[k]))]),
    ),
    durationUnit: pickDurationUnit(runs.map((r) => runDurationS(r, nowMs))),
    peak: columnNumberFormat([
      ...runs.map((r) => r.peakOutputTokPerS),
      ...groups.map((g) => g.bestPeakOutputTokPerS),
    ]),
  };
}
