"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { LatencyChart } from "@/components/charts/latency-chart";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { ChartPlaceholder, seriesColor, type SweepSeries } from "@/components/charts/sweep-chart-parts";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { BenchmarkPointTable, type PointSeriesTag } from "@/components/runs/benchmark-point-table";
import { ConfigPanel } from "@/components/runs/config-panel";
import { HeadlineFigures, type HeadlineItem } from "@/components/runs/headline-figures";
import { RunHeader } from "@/components/runs/run-header";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRun } from "@/lib/api-client";
import { groupSeries, headline, isFailedPoint, plotData, sweepScale } from "@/lib/metrics/benchmark-sweep";
import { runTopic } from "@/lib/protocol/live";
import { runQueryKey } from "@/lib/query-keys";
import type { RunDetail } from "@/lib/view-models";

const THROUGHPUT_HEIGHT = 320;
const LATENCY_HEIGHT = 240;

/** The live run page: header, headline figures, charts, configuration and the point table. */
export function RunDetailView({ initial, renderedAt }: { initial: RunDetail; renderedAt: number }) {
  const live = useLiveTopics([runTopic(initial.id)]);
  const { data: run, error } = useQuery({
    queryKey: runQueryKey(initial.id),
    queryFn: ({ signal }) => fetchRun(initial.id, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });

  const view = useMemo(() => {
    const points = run.benchmarkPoints;
    const scale = sweepScale(points);
    const groups = groupSeries(points, run.config);
    const series: SweepSeries[] = groups.map((g, i) => ({ key: g.key, label: g.label, color: seriesColor(i), data: plotData(g.points, scale) }));
    const headlines: HeadlineItem[] = groups.map((g, i) => ({ key: g.key, label: g.label, color: seriesColor(i), headline: headline(g.points, scale) }));
    const seriesOf = new Map<string, PointSeriesTag>();
    groups.forEach((g, i) => g.points.forEach((p) => seriesOf.set(p.key, { label: g.label, color: seriesColor(i) })));
    // Table rows grouped by series (same order as the legend), each in sweep order.
    const tablePoints = groups.flatMap((g) => g.points);
    const failed = points.filter(isFailedPoint).length;
    return { points, scale, series, headlines, seriesOf, tablePoints, failed };
  }, [run]);

  const isBenchmark = run.kind === "benchmark";
  const hasPoints = view.points.length > 0;
  const waiting = run.state === "running" ? "Waiting for the first benchmark point…" : "This run reported no benchmark points.";
  const byWhat = view.scale.kind === "concurrency" ? "concurrency" : "request rate";

  return (
    <div className="grid gap-4">
      <RunHeader run={run} live={live} />
      {error && (
        <p role="alert" className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed">
          Could not refresh this run ({error.message}); showing the last data received.
        </p>
      )}

      {isBenchmark && (
        // Rendered before the first point too (empty figures), so the layout does not jump when it arrives.
        <HeadlineFigures items={hasPoints ? view.headlines : [{ key: "empty", label: "", color: "", headline: headline([], view.scale) }]} scale={view.scale} />
      )}

      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(320px,400px)]">
        {isBenchmark ? (
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Output tok/s by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">
                {view.scale.kind === "requestRate" && view.scale.unboundedX !== null ? "“max” = all requests sent at once · " : ""}
                failed points are not plotted
              </CardDescription>
            </CardHeader>
            <CardContent>
              {hasPoints ? (
                <ThroughputChart series={view.series} scale={view.scale} height={THROUGHPUT_HEIGHT} />
              ) : (
                <ChartPlaceholder height={THROUGHPUT_HEIGHT + 28}>{waiting}</ChartPlaceholder>
              )}
            </CardContent>
          </Card>
        ) : (
          <Card>
            <CardContent className="text-sm text-muted-fg">This is a {run.kind} run; its progress and metrics views are not built yet.</CardContent>
          </Card>
        )}
        <Card className="min-w-0 xl:row-span-2 xl:self-start">
          <CardHeader>
            <CardTitle>Configuration</CardTitle>
          </CardHeader>
          <CardContent>
            <ConfigPanel config={run.config} />
          </CardContent>
        </Card>
        {isBenchmark && (
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Latency by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">median and p99, ms</CardDescription>
            </CardHeader>
            <CardContent>
              {hasPoints ? (
                <LatencyChart series={view.series} scale={view.scale} height={LATENCY_HEIGHT} />
              ) : (
                <ChartPlaceholder height={LATENCY_HEIGHT + 48}>{waiting}</ChartPlaceholder>
              )}
            </CardContent>
          </Card>
        )}
      </div>

      {isBenchmark && hasPoints && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Points</CardTitle>
            <CardDescription className="tabular-nums">
              {view.points.length} point{view.points.length === 1 ? "" : "s"}
              {view.failed > 0 && <span className="font-medium text-failed"> · {view.failed} failed</span>}
            </CardDescription>
          </CardHeader>
          <BenchmarkPointTable points={view.tablePoints} seriesOf={view.seriesOf} />
        </Card>
      )}
    </div>
  );
}
