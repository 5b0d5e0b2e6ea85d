"use client";

import { useQueries } from "@tanstack/react-query";
import { GitCompareArrows } from "lucide-react";
import Link from "next/link";

import type { ContextSeries } from "@/components/charts/context-length-chart";
import { LatencyChart } from "@/components/charts/latency-chart";
import { LatencyUnitProvider } from "@/components/charts/latency-unit";
import { SpeedTradeoffChart } from "@/components/charts/speed-tradeoff-chart";
import { seriesColor, type SweepSeries } from "@/components/charts/sweep-chart-parts";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { ConfigValue } from "@/components/runs/config-panel";
import { CompareExportLinks } from "@/components/runs/export-menu";
import { LongContextCard } from "@/components/runs/long-context-card";
import { ProjectionTable } from "@/components/runs/projection-panel";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { fetchRun } from "@/lib/api/fetchers/runs";
import { runQueryKey } from "@/lib/api/query-keys";
import { formatTokPerS, MISSING } from "@/lib/format";
import { pickLatencyUnits } from "@/lib/latency-unit";
import {
  groupSeries,
  headline,
  plotData,
  sweepPointLabel,
  sweepScale,
  type Headline,
} from "@/lib/metrics/benchmark-sweep";
import { longContextSeries, splitScenarios } from "@/lib/metrics/long-context";
import { runPath } from "@/lib/paths";
import { runTopic } from "@/lib/protocol/live";
import { configDiff, engineLabel } from "@/lib/run-config";
import { distinctRunLabels } from "@/lib/run-labels";
import { cn } from "@/lib/utils";
import type { RunDetail } from "@/lib/view-models";

import { TrainingCompare } from "./training-compare";

const SERIES_DASHES = [undefined, "6 3", "2 3", "8 3 2 3"];

interface CompareViewProps {
  initial: RunDetail[];
  missing: number[];
  renderedAt: number;
}

interface RunEntry {
  run: RunDetail;
  color: string;
  headline: Headline;
}

/**
 * Several runs side by side, one colour per run: training metrics by step (smoothed, log-y per chart), throughput sweeps by concurrency, long-context
 * runs by context length (a run appears in the charts it has points for), a summary, the
 * projection for one workload on every run, and the config differences.
 */
export function CompareView({ initial, missing, renderedAt }: CompareViewProps) {
  const live = useLiveTopics(initial.map((r) => runTopic(r.id)));
  const results = useQueries({
    queries: initial.map((r) => ({
      queryKey: runQueryKey(r.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchRun(r.id, signal),
      initialData: r,
      initialDataUpdatedAt: renderedAt,
      refetchInterval: refetchIntervalFor(live),
    })),
  });
  const runs = results.map((q, i) => q.data ?? initial[i]!);

  // Cheap (a few runs × tens of points); recomputed only when this view re-renders, i.e. when query data changes.
  const view = (() => {
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
  })();

  if (initial.length < 2) {
    return (
      <div className="grid gap-4">
        <h1 className="text-lg font-semibold tracking-tight">Compare runs</h1>
        {missing.length > 0 && <MissingNote ids={missing} />}
        <div className="mx-auto mt-6 grid max-w-lg justify-items-center gap-3 rounded-lg border border-dashed border-border bg-card px-6 py-10 text-center">
          <GitCompareArrows aria-hidden className="size-6 text-muted-fg" />
          <p className="text-sm">Pick two or more benchmark or training runs to compare.</p>
          <p className="text-sm text-muted-fg">
            Tick them on the{" "}
            <Link href="/runs" className="text-link underline-offset-4 hover:underline">
              Runs
            </Link>{" "}
            page and press Compare, or open{" "}
            <code className="font-mono text-xs whitespace-nowrap">/compare?ids=12,13</code>.
          </p>
        </div>
      </div>
    );
  }

  const differing = view.diff.filter((r) => r.differs);
  const same = view.diff.filter((r) => !r.differs);
  const byWhat = view.scale.kind === "concurrency" ? "concurrency" : "request rate";
  // One unit per latency metric for every chart on the page, from all compared runs' points (lib/latency-unit.ts).
  const latencyUnits = pickLatencyUnits(runs.flatMap((r) => r.benchmarkPoints));

  return (
    <LatencyUnitProvider units={latencyUnits}>
      <div className="grid gap-4">
        <h1 className="text-lg font-semibold tracking-tight">Compare {runs.length} runs</h1>
        {missing.length > 0 && <MissingNote ids={missing} />}

        {view.showSweep && (
          <Card>
            <CardHeader>
              <CardTitle>Output tok/s by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">
                aggregate output throughput · failed points are not plotted
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-2">
              <ThroughputChart
                series={view.series}
                scale={view.scale}
                showDecode={false}
                height={340}
              />
              {view.unplotted.length > 0 && (
                <p className="text-xs text-muted-fg">
                  Nothing to plot on the {byWhat} axis for:{" "}
                  {view.unplotted.map((e) => e.run.name).join(", ")}.
                </p>
              )}
              {view.longContextOnly.length > 0 && (
                <p className="text-xs text-muted-fg">
                  Long-context points only, so not on this chart:{" "}
                  {view.longContextOnly.map((e) => e.run.name).join(", ")}.
                </p>
              )}
            </CardContent>
          </Card>
        )}

        {view.showSweep && (
          <div className="grid gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
            <Card>
              <CardHeader>
                <CardTitle>Latency by {byWhat}</CardTitle>
                <CardDescription className="ml-auto">
                  TTFT and TPOT, median and p99 · units on each axis
                </CardDescription>
              </CardHeader>
              <CardContent>
                <LatencyChart series={view.series} scale={view.scale} height={240} />
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>Throughput vs per-user speed</CardTitle>
              </CardHeader>
              <CardContent>
                <SpeedTradeoffChart series={view.series} scale={view.scale} height={280} />
              </CardContent>
            </Card>
          </div>
        )}

        {view.anyLongContext && (
          <div className="grid gap-4 xl:grid-cols-2">
            <LongContextCard metric="ttft" series={view.contextSeries} legend showP99={false} />
            <LongContextCard metric="decode" series={view.contextSeries} legend />
          </div>
        )}

        <TrainingCompare runs={runs} colors={view.entries.map((e) => e.color)} live={live} />

        <Card>
          <CardHeader>
            <CardTitle>Runs</CardTitle>
            <CompareExportLinks ids={runs.map((r) => r.id)} className="ml-auto" />
          </CardHeader>
          <Table>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Run</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Host</TableHead>
                <TableHead>Model</TableHead>
                <TableHead>Engine</TableHead>
                {view.anyBenchmark && (
                  <>
                    <TableHead className="text-right">At lowest load</TableHead>
                    <TableHead className="text-right">Peak output</TableHead>
                    <TableHead>Peak at</TableHead>
                  </>
                )}
                <TableHead>Started</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {view.entries.map(({ run, color, headline: h }) => (
                <TableRow key={run.id}>
                  <TableCell className="max-w-80">
                    <span className="flex min-w-0 items-center gap-2">
                      <span
                        aria-hidden
                        className="size-2.5 shrink-0 rounded-full"
                        style={{ background: color }}
                      />
                      <Link
                        href={runPath(run.id)}
                        className="truncate rounded-sm font-medium hover:underline"
                        title={run.name}
                      >
                        {run.name}
                      </Link>
                    </span>
                  </TableCell>
                  <TableCell>
                    <span className="flex items-center gap-1.5">
                      <StatusBadge state={run.state} />
                      {run.archivedAt && <Badge tone="outline">archived</Badge>}
                    </span>
                  </TableCell>
                  <TableCell>{run.host}</TableCell>
                  <TableCell className="max-w-64 truncate" title={run.model ?? undefined}>
                    {run.model ?? MISSING}
                  </TableCell>
                  <TableCell>{engineLabel(run.engine, run.engineVersion) ?? MISSING}</TableCell>
                  {view.anyBenchmark && (
                    <>
                      <TableCell
                        className="text-right"
                        title={h.lowest ? sweepPointLabel(h.lowest.x, view.scale) : undefined}
                      >
                        {formatTokPerS(h.lowest?.value)}
                      </TableCell>
                      <TableCell className="text-right font-semibold">
                        {formatTokPerS(h.peak?.value)}
                      </TableCell>
                      <TableCell>
                        {h.peak ? sweepPointLabel(h.peak.x, view.scale) : MISSING}
                      </TableCell>
                    </>
                  )}
                  <TableCell className="text-muted-fg">
                    <RelativeTime iso={run.startedAt} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Card>

        {view.anyBenchmark && <ProjectionTable entries={view.entries} />}

        <Card>
          <CardHeader>
            <CardTitle>Configuration differences</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {differing.length} differ · {same.length} identical
            </CardDescription>
          </CardHeader>
          {differing.length === 0 ? (
            <CardContent className="text-sm text-muted-fg">
              These runs have identical configurations.
            </CardContent>
          ) : (
            <ConfigDiffTable rows={differing} entries={view.entries} />
          )}
          {same.length > 0 && (
            <details className="border-t border-border">
              <summary className="cursor-pointer px-4 py-2 text-xs text-muted-fg select-none hover:text-foreground">
                Show {same.length} identical keys
              </summary>
              <ConfigDiffTable rows={same} entries={view.entries} />
            </details>
          )}
        </Card>
      </div>
    </LatencyUnitProvider>
  );
}

function ConfigDiffTable({
  rows,
  entries,
}: {
  rows: ReturnType<typeof configDiff>;
  entries: RunEntry[];
}) {
  return (
    <Table className="table-fixed">
      <colgroup>
        <col className="w-56" />
        {entries.map((e) => (
          <col key={e.run.id} />
        ))}
      </colgroup>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Key</TableHead>
          {entries.map(({ run, color }) => (
            <TableHead key={run.id}>
              <span className="flex min-w-0 items-center gap-1.5">
                <span
                  aria-hidden
                  className="size-2 shrink-0 rounded-full"
                  style={{ background: color }}
                />
                <span className="truncate" title={run.name}>
                  {run.name}
                </span>
              </span>
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.key}>
            <TableCell
              className={cn(
                "h-auto truncate py-2 align-top text-muted-fg",
                row.label === row.key && "font-mono text-xs leading-5",
              )}
              title={row.key}
            >
              {row.label}
            </TableCell>
            {row.values.map((v, i) => (
              <TableCell key={i} className="h-auto py-2 align-top whitespace-normal">
                {v === undefined ? (
                  <span className="text-muted-fg">{MISSING}</span>
                ) : (
                  <ConfigValue value={v} />
                )}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function MissingNote({ ids }: { ids: number[] }) {
  return (
    <p
      role="status"
      className="rounded-md border border-stale/40 bg-stale-bg px-3 py-2 text-sm text-stale"
    >
      Not found: run{ids.length > 1 ? "s" : ""} {ids.join(", ")}.
    </p>
  );
}
