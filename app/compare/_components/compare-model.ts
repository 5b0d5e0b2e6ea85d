import type { ContextSeries } from "@/components/charts/context-length-chart";
import { seriesColor, type SweepSeries } from "@/components/charts/sweep-chart-parts";
import {
  groupSeries,
  headline,
  plotData,
  sweepScale,
  type Headline,
} from "@/lib/metrics/benchmark-sweep";
import { longContextSeries, splitScenarios } from "@/lib/metrics/long-context";
import { configDiff } from "@/lib/run-config";
import { distinctRunLabels } from "@/lib/run-labels";
import type { RunDetail } from "@/lib/view-models";

const SERIES_DASHES = [undefined, "6 3", "2 3", "8 3 2 3"];

/** One compared run with its colour and its sweep headline (lowest-load and peak output tok/s). */
export interface RunEntry {
  run: RunDetail;
  color: string;
  headline: Headline;
}

/**
 * What the compare page draws for `runs` (one colour per run): the sweep series by concurrency
 * or request rate, the long-context series by context length, the runs with nothing to plot, which
 * sections show, and the config differences. Cheap (a few runs × tens of points); the view
 * recomputes it on every render, i.e. when query data changes.
 */
export function compareModel(runs: RunDetail[]) {
  // Each chart shows the runs that have points of its kind: sweeps by concurrency, long-context by context length.
  const split = runs.map((r) => splitScenarios(r.benchmarkPoints));
  const scale = sweepScale(split.flatMap((s) => s.sweep));
  const series: SweepSeries[] = [];
  const contextSeries: ContextSeries[] = [];
  const names = distinctRunLabels(runs);
  const entries: RunEntry[] = runs.map((run, i) => {
    const color = seriesColor(i);
    const name = names.get(run.id) ?? run.name;
    const sweep = split[i]!.sweep;
    const groups = groupSeries(sweep, run.config);
    groups.forEach((g, gi) =>
      series.push({
        key: `${run.id}:${g.key}`,
        label: groups.length > 1 ? `${name} · ${g.label}` : name,
        // One colour per run; a run with several series (e.g. input lengths) tells them apart by dash.
        color,
        dash: SERIES_DASHES[gi % SERIES_DASHES.length],
        data: plotData(g.points, scale),
      }),
    );
    const lc = longContextSeries(split[i]!.longContext, run.config);
    lc.forEach((g, gi) =>
      contextSeries.push({
        key: `${run.id}:${g.key}`,
        label: lc.length > 1 ? `${name} · ${g.label}` : name,
        color,
        dash: SERIES_DASHES[gi % SERIES_DASHES.length],
        data: g.data,
      }),
    );
    return { run, color, headline: headline(sweep, scale) };
  });
  const unplotted = entries.filter(
    (e, i) =>
      split[i]!.sweep.length > 0 &&
      !series.some(
        (s) => s.key.startsWith(`${e.run.id}:`) && s.data.some((d) => d.outputTokPerS !== null),
      ),
  );
  const anySweep = split.some((s) => s.sweep.length > 0);
  const anyLongContext = contextSeries.length > 0;
  const longContextOnly = entries.filter(
    (_, i) => split[i]!.sweep.length === 0 && split[i]!.longContext.length > 0,
  );
  // Training runs alone (no benchmark run, no benchmark point) show only their metric charts.
  const anyBenchmark = runs.some((r) => r.kind === "benchmark" || r.benchmarkPoints.length > 0);
  return {
    scale,
    series,
    contextSeries,
    entries,
    unplotted,
    longContextOnly,
    anyBenchmark,
    showSweep: anyBenchmark && (anySweep || !anyLongContext),
    anyLongContext,
    diff: configDiff(runs.map((r) => r.config)),
  };
}
