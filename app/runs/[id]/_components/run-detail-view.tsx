"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { LatencyChart } from "@/components/charts/latency-chart";
import { SpeedTradeoffChart } from "@/components/charts/speed-tradeoff-chart";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { ChartPlaceholder, seriesColor, type SweepSeries } from "@/components/charts/sweep-chart-parts";
import type { ContextSeries } from "@/components/charts/context-length-chart";
import { sharedRefetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { BenchmarkPointTable, type PointSeriesTag } from "@/components/runs/benchmark-point-table";
import { EvalSections } from "@/components/evals/eval-sections";
import { ConfigPanel } from "@/components/runs/config-panel";
import { ExportMenu } from "@/components/runs/export-menu";
import { HeadlineFigures, type HeadlineItem } from "@/components/runs/headline-figures";
import { LongContextCard } from "@/components/runs/long-context-card";
import { ProjectionPanel } from "@/components/runs/projection-panel";
import { RunHeader } from "@/components/runs/run-header";
import { RunServingCard } from "@/components/serving/serving-cards";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ProgressCard } from "@/components/pipelines/progress-card";
import { fetchRunMetrics, fetchRunProgress, metricsQueryKey, progressQueryKey } from "@/components/pipelines/queries";
import { liveRunState, useServerNow } from "@/components/pipelines/use-server-now";
import { fetchRun } from "@/lib/api-client";
import { groupSeries, headline, isFailedPoint, plotData, sweepScale } from "@/lib/metrics/benchmark-sweep";
import { formatContextLength, longContextSeries, pointTally, splitScenarios } from "@/lib/metrics/long-context";
import { runTopic } from "@/lib/protocol/live";
import { runQueryKey } from "@/lib/query-keys";
import { cn } from "@/lib/utils";
import type { RunDetail } from "@/lib/view-models";
import type { RunProgressView } from "@/lib/view-models/pipeline";
import type { RunServingView } from "@/lib/view-models/serving";
import { ActivitySections, MetricSections, PipelineSections } from "./activity-sections";

const THROUGHPUT_HEIGHT = 320;
const LATENCY_HEIGHT = 240;
/** Config keys `pitwall run` sets, shown in the command card rather than the configuration. */
const COMMAND_KEYS = new Set(["command", "commandLine", "cwd", "gitCommit"]);

interface RunDetailViewProps {
  initial: RunDetail;
  initialProgress: RunProgressView;
  /** Server telemetry at render time (serving runs of the same host during the run). */
  initialServing: RunServingView;
  renderedAt: number;
  /** The viewer may edit and archive the run (approver or admin). */
  canEdit?: boolean;
}

/**
 * The live run page. Benchmark runs: headline figures, charts, configuration and the point table.
 * Pipeline runs (extraction/generation, or any run reporting progress): progress, workers, S3 panel
 * and uploads over time. Training runs (or any run with metric points): one chart per metric.
 * Every run: the `pitwall run` command, events and artifacts when it has them.
 */
export function RunDetailView({ initial, initialProgress, initialServing, renderedAt, canEdit = false }: RunDetailViewProps) {
  // run:<id> is a shared-read topic: the server pushes the run, progress and metrics (snapshot,
  // then deltas) into these three queries; they poll only while the socket is down.
  const live = useLiveTopics([runTopic(initial.id)]);
  const refetchInterval = sharedRefetchIntervalFor(live);
  const refetchOnWindowFocus = live !== "open";
  const { data: fetched, error } = useQuery({
    queryKey: runQueryKey(initial.id),
    queryFn: ({ signal }) => fetchRun(initial.id, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval,
    refetchOnWindowFocus,
  });
  const progressQuery = useQuery({
    queryKey: progressQueryKey(initial.id),
    queryFn: ({ signal }) => fetchRunProgress(initial.id, signal),
    initialData: initialProgress,
    initialDataUpdatedAt: renderedAt,
    refetchInterval,
    refetchOnWindowFocus,
  });
  const { data: metrics } = useQuery({
    queryKey: metricsQueryKey(initial.id),
    // Fetched from the browser, not with the server render: the page never waits for the series.
    queryFn: ({ signal }) => fetchRunMetrics(initial.id, signal),
    refetchInterval,
    refetchOnWindowFocus,
  });
  const progress = progressQuery.data;
  const serverNow = useServerNow(progress.asOf, progressQuery.dataUpdatedAt);
  // Nothing is pushed when a worker goes quiet: re-derive "stale" on the server's clock each second.
  const lastPushAt = Date.parse(fetched.lastPushAt) >= Date.parse(progress.lastPushAt) ? fetched.lastPushAt : progress.lastPushAt;
  const state = liveRunState(fetched.state, lastPushAt, progress.stallAfterS, serverNow);
  const run = useMemo(() => (state === fetched.state ? fetched : { ...fetched, state }), [fetched, state]);

  const view = useMemo(() => {
    const points = run.benchmarkPoints;
    // Long-context points are charted by context length, never on the concurrency sweep.
    const { sweep, longContext } = splitScenarios(points);
    const scale = sweepScale(sweep);
    const groups = groupSeries(sweep, run.config);
    const series: SweepSeries[] = groups.map((g, i) => ({ key: g.key, label: g.label, color: seriesColor(i), data: plotData(g.points, scale) }));
    const headlines: HeadlineItem[] = groups.map((g, i) => ({ key: g.key, label: g.label, color: seriesColor(i), headline: headline(g.points, scale) }));
    const seriesOf = new Map<string, PointSeriesTag>();
    groups.forEach((g, i) => g.points.forEach((p) => seriesOf.set(p.key, { label: g.label || (longContext.length > 0 ? "throughput sweep" : ""), color: seriesColor(i) })));
    const lcGroups = longContextSeries(longContext, run.config);
    const lcColor = (i: number) => seriesColor(groups.length + i);
    const contextSeries: ContextSeries[] = lcGroups.map((g, i) => ({ key: g.key, label: g.label, color: lcColor(i), data: g.data }));
    lcGroups.forEach((g, i) =>
      g.points.forEach((p) => seriesOf.set(p.key, { label: `long-context ${p.inputLen === null ? "?" : formatContextLength(p.inputLen)} in${g.label ? ` · ${g.label}` : ""}`, color: lcColor(i) })),
    );
    const lcFailed = lcGroups.reduce((n, g) => n + g.failedCount, 0);
    const contextNote = lcFailed > 0 ? `${lcFailed} failed long-context point${lcFailed === 1 ? " is" : "s are"} not plotted` : undefined;
    // Table rows grouped by series (same order as the legends), each in sweep or context-length order.
    const tablePoints = [...groups.flatMap((g) => g.points), ...lcGroups.flatMap((g) => g.points)];
    const failed = points.filter(isFailedPoint).length;
    const showSweep = sweep.length > 0 || longContext.length === 0;
    return { points, scale, series, headlines, seriesOf, tablePoints, failed, showSweep, contextSeries, contextNote, tally: pointTally(tablePoints) };
  }, [run.benchmarkPoints, run.config]);

  const isBenchmark = run.kind === "benchmark";
  const isPipeline = run.kind === "extraction" || run.kind === "generation" || progress.workers.length > 0;
  const isServing = run.kind === "serving";
  // A serving run's metrics (step = unix ms) are drawn against time by its telemetry card.
  const isTraining = run.kind === "training" || (!isServing && (metrics?.series.length ?? 0) > 0);
  // A finished benchmark's sweep progress ("8 / 8 levels", rate —) says nothing its charts do not.
  const finishedBenchmark = isBenchmark && run.state !== "running" && run.state !== "stale";
  const showProgress = !finishedBenchmark && (isPipeline || progress.progress.done !== null || progress.progress.total !== null);
  const hasActivity = progress.events.length > 0 || progress.artifactTotal > 0 || progress.command !== null;
  const hasPoints = view.points.length > 0;
  const waiting = run.state === "running" ? "Waiting for the first benchmark point…" : "This run reported no benchmark points.";
  const byWhat = view.scale.kind === "concurrency" ? "concurrency" : "request rate";

  // The command card already shows what `pitwall run` put in the config.
  const configShown = progress.command ? Object.fromEntries(Object.entries(run.config).filter(([k]) => !COMMAND_KEYS.has(k))) : run.config;
  const configCard = (
    <Card className={cn("min-w-0 xl:self-start", isBenchmark && "xl:row-span-2")}>
      <CardHeader>
        <CardTitle>Configuration</CardTitle>
      </CardHeader>
      <CardContent>
        <ConfigPanel config={configShown} />
      </CardContent>
    </Card>
  );

  return (
    <div className="grid gap-4">
      <RunHeader run={run} live={live} canEdit={canEdit} actions={<ExportMenu runId={run.id} />} />
      {error && (
        <p role="alert" className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed">
          Could not refresh this run ({error.message}); showing the last data received.
        </p>
      )}

      {showProgress && <ProgressCard view={progress} state={run.state} serverNowMs={serverNow} />}
      {/* Drafter evals (τ by checkpoint): renders nothing for a non-eval run without eval results.
          A training run shows its loss / lr / grad_norm charts first and its evals below them. */}
      {run.kind !== "training" && <EvalSections runId={run.id} kind={run.kind} />}

      {isBenchmark ? (
        <>
          {/* Rendered before the first point too (empty figures), so the layout does not jump when it arrives. */}
          {view.showSweep && (
            <HeadlineFigures items={hasPoints ? view.headlines : [{ key: "empty", label: "", color: "", headline: headline([], view.scale) }]} scale={view.scale} tally={view.tally} />
          )}
          <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(320px,400px)]">
            {/* A run with long-context points only shows them where the sweep charts would be. */}
            {view.showSweep ? (
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
              <LongContextCard metric="ttft" series={view.contextSeries} note={view.contextNote} />
            )}
            {configCard}
            {view.showSweep ? (
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
            ) : (
              <LongContextCard metric="decode" series={view.contextSeries} />
            )}
          </div>
          {view.showSweep && view.contextSeries.length > 0 && (
            <div className="grid gap-4 xl:grid-cols-2">
              <LongContextCard metric="ttft" series={view.contextSeries} note={view.contextNote} />
              <LongContextCard metric="decode" series={view.contextSeries} />
            </div>
          )}
          {hasPoints && view.showSweep && (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Throughput vs per-user speed</CardTitle>
                <CardDescription className="ml-auto">one point per {byWhat} · up and right is better</CardDescription>
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
                  {view.failed > 0 && <span className="font-medium text-failed"> · {view.failed} failed</span>}
                </CardDescription>
              </CardHeader>
              <BenchmarkPointTable points={view.tablePoints} seriesOf={view.seriesOf} config={run.config} />
            </Card>
          )}
          {isTraining && <MetricSections metrics={metrics} />}
          {hasActivity && <ActivitySections view={progress} state={run.state} artifactTitle="Artifacts" />}
        </>
      ) : (
        <>
          {isServing && <RunServingCard runId={run.id} initial={initialServing} renderedAt={renderedAt} ownRun />}
          {isPipeline && <PipelineSections view={progress} />}
          {isTraining && <MetricSections metrics={metrics} />}
          {run.kind === "training" && <EvalSections runId={run.id} kind={run.kind} />}
          {/* Eval runs show their results in the eval sections above. */}
          {!isPipeline && !isTraining && !isServing && run.kind !== "eval" && (
            <Card>
              <CardContent className="text-sm text-muted-fg">
                {run.state === "running" ? "Waiting for the first progress report or metric point…" : `This ${run.kind} run reported no progress and no metrics.`}
              </CardContent>
            </Card>
          )}
          <ActivitySections view={progress} state={run.state} artifactTitle={isTraining ? "Saved checkpoints" : "Artifacts"} config={configCard} />
        </>
      )}
    </div>
  );
}
