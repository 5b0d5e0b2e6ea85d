"use client";

import { useMemo } from "react";

import type { ContextSeries } from "@/components/charts/context-length-chart";
import { LatencyChart } from "@/components/charts/latency-chart";
import { LatencyUnitProvider } from "@/components/charts/latency-unit";
import { SpeedTradeoffChart } from "@/components/charts/speed-tradeoff-chart";
import {
  ChartPlaceholder,
  seriesColor,
  type SweepSeries,
} from "@/components/charts/sweep-chart-parts";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { BenchmarkPointTable, type PointSeriesTag } from "@/components/runs/benchmark-point-table";
import { HeadlineFigures, type HeadlineItem } from "@/components/runs/headline-figures";
import { LongContextCard } from "@/components/runs/long-context-card";
import { ProjectionPanel } from "@/components/runs/projection-panel";
import { RunServingCard } from "@/components/serving/serving-cards";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { pickLatencyUnits } from "@/lib/latency-unit";
import {
  groupSeries,
  headline,
  isFailedPoint,
  plotData,
  sweepScale,
} from "@/lib/metrics/benchmark-sweep";
import {
  formatContextLength,
  longContextSeries,
  pointTally,
  splitScenarios,
} from "@/lib/metrics/long-context";
import type { RunDetail } from "@/lib/view-models";
import type { RunServingView } from "@/lib/view-models/serving";

const THROUGHPUT_HEIGHT = 320;
const LATENCY_HEIGHT = 240;

/** Series, headline figures, table rows and the one latency unit of a benchmark run's points. */
function useBenchmarkView(run: RunDetail) {
  return useMemo(() => {
    const points = run.benchmarkPoints;
    // Long-context points are charted by context length, never on the concurrency sweep.
    const { sweep, longContext } = splitScenarios(points);
    const scale = sweepScale(sweep);
    const groups = groupSeries(sweep, run.config);
    const series: SweepSeries[] = groups.map((g, i) => ({
      key: g.key,
      label: g.label,
      color: seriesColor(i),
      data: plotData(g.points, scale),
    }));
    const headlines: HeadlineItem[] = groups.map((g, i) => ({
      key: g.key,
      label: g.label,
      color: seriesColor(i),
      headline: headline(g.points, scale),
    }));
    const seriesOf = new Map<string, PointSeriesTag>();
    groups.forEach((g, i) =>
      g.points.forEach((p) =>
        seriesOf.set(p.key, {
          label: g.label || (longContext.length > 0 ? "throughput sweep" : ""),
          color: seriesColor(i),
        }),
      ),
    );
    const lcGroups = longContextSeries(longContext, run.config);
    const lcColor = (i: number) => seriesColor(groups.length + i);
    const contextSeries: ContextSeries[] = lcGroups.map((g, i) => ({
      key: g.key,
      label: g.label,
      color: lcColor(i),
      data: g.data,
    }));
    lcGroups.forEach((g, i) =>
      g.points.forEach((p) =>
        seriesOf.set(p.key, {
          label: `long-context ${p.inputLen === null ? "?" : formatContextLength(p.inputLen)} in${g.label ? ` · ${g.label}` : ""}`,
          color: lcColor(i),
        }),
      ),
    );
    const lcFailed = lcGroups.reduce((n, g) => n + g.failedCount, 0);
    const contextNote =
      lcFailed > 0
        ? `${lcFailed} failed long-context point${lcFailed === 1 ? " is" : "s are"} not plotted`
        : undefined;
    // Table rows grouped by series (same order as the legends), each in sweep or context-length order.
    const tablePoints = [...groups.flatMap((g) => g.points), ...lcGroups.flatMap((g) => g.points)];
    const failed = points.filter(isFailedPoint).length;
    const showSweep = sweep.length > 0 || longContext.length === 0;
    // One unit per latency metric for the whole page (charts, tables, tooltips), each from its own values.
    const latencyUnits = pickLatencyUnits(points);
    return {
      points,
      scale,
      series,
      headlines,
      seriesOf,
      tablePoints,
      failed,
      showSweep,
      contextSeries,
      contextNote,
      tally: pointTally(tablePoints),
      latencyUnits,
    };
  }, [run.benchmarkPoints, run.config]);
}

/**
 * The benchmark part of a run page, headline charts first: figures, output tok/s and latency by
 * concurrency (or request rate), long-context charts, throughput vs per-user speed, server
 * telemetry, the projection and the point table. Each latency metric inside is in one unit (ms or s,
 * picked from the points; lib/latency-unit.ts).
 */
export function BenchmarkSections({
  run,
  initialServing,
  renderedAt,
}: {
  run: RunDetail;
  initialServing: RunServingView;
  renderedAt: number;
}) {
  const view = useBenchmarkView(run);
  const hasPoints = view.points.length > 0;
  const waiting =
    run.state === "running"
      ? "Waiting for the first benchmark point…"
      : "This run reported no benchmark points.";
  const byWhat = view.scale.kind === "concurrency" ? "concurrency" : "request rate";
  return (
    <LatencyUnitProvider units={hasPoints ? view.latencyUnits : null}>
      {/* Rendered before the first point too (empty figures), so the layout does not jump when it arrives. */}
      {view.showSweep && (
        <HeadlineFigures
          items={
            hasPoints
              ? view.headlines
              : [{ key: "empty", label: "", color: "", headline: headline([], view.scale) }]
          }
          scale={view.scale}
          tally={view.tally}
        />
      )}
      {/* A run with long-context points only shows them where the sweep charts would be. */}
      {view.showSweep ? (
        <>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Output tok/s by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">
                {view.scale.kind === "requestRate" && view.scale.unboundedX !== null
                  ? "“max” = all requests sent at once · "
                  : ""}
                failed points are not plotted
              </CardDescription>
            </CardHeader>
            <CardContent>
              {hasPoints ? (
                <ThroughputChart
                  series={view.series}
                  scale={view.scale}
                  height={THROUGHPUT_HEIGHT}
                />
              ) : (
                <ChartPlaceholder height={THROUGHPUT_HEIGHT + 28}>{waiting}</ChartPlaceholder>
              )}
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Latency by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">
                median and p99 · units on each axis
              </CardDescription>
            </CardHeader>
            <CardContent>
              {hasPoints ? (
                <LatencyChart series={view.series} scale={view.scale} height={LATENCY_HEIGHT} />
              ) : (
                <ChartPlaceholder height={LATENCY_HEIGHT + 48}>{waiting}</ChartPlaceholder>
              )}
            </CardContent>
          </Card>
        </>
      ) : null}
      {view.contextSeries.length > 0 || !view.showSweep ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <LongContextCard metric="ttft" series={view.contextSeries} note={view.contextNote} />
          <LongContextCard metric="decode" series={view.contextSeries} />
        </div>
      ) : null}
      {hasPoints && view.showSweep && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Throughput vs per-user speed</CardTitle>
            <CardDescription className="ml-auto">
              one point per {byWhat} · up and right is better
            </CardDescription>
          </CardHeader>
          <CardContent>
            <SpeedTradeoffChart series={view.series} scale={view.scale} height={280} />
          </CardContent>
        </Card>
      )}
      <RunServingCard runId={run.id} initial={initialServing} renderedAt={renderedAt} />
      {hasPoints && <ProjectionPanel run={run} />}
      {hasPoints && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Points</CardTitle>
            <CardDescription className="tabular-nums">
              {view.points.length} point{view.points.length === 1 ? "" : "s"}
              {view.failed > 0 && (
                <span className="font-medium text-failed"> · {view.failed} failed</span>
              )}
            </CardDescription>
          </CardHeader>
          <BenchmarkPointTable
            points={view.tablePoints}
            seriesOf={view.seriesOf}
            config={run.config}
          />
        </Card>
      )}
    </LatencyUnitProvider>
  );
}
