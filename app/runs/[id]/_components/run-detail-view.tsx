"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";

import { TimeRangePicker } from "@/components/charts/time-range-picker";
import { EvalSections } from "@/components/evals/eval-sections";
import { sharedRefetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { ProgressCard } from "@/components/pipelines/progress-card";
import { liveRunState, useServerNow } from "@/components/pipelines/use-server-now";
import { ExportMenu } from "@/components/runs/export-menu";
import { RunHeader } from "@/components/runs/run-header";
import { RunServingCard } from "@/components/serving/serving-cards";
import { Card, CardContent } from "@/components/ui/card";
import { fetchRun, fetchRunMetrics, fetchRunProgress } from "@/lib/api/fetchers/runs";
import { metricsQueryKey, progressQueryKey, runQueryKey } from "@/lib/api/query-keys";
import { runTopic } from "@/lib/protocol/live";
import { DEFAULT_RANGE, timeRangeSearch, type TimeRange } from "@/lib/time-range";
import type { RunDetail } from "@/lib/view-models";
import type { RunProgressView } from "@/lib/view-models/pipeline";
import type { RunServingView } from "@/lib/view-models/serving";

import { ActivitySections, PipelineSections } from "./activity-sections";
import { BenchmarkSections } from "./benchmark-sections";
import { MetricSections } from "./metric-sections";
import { RunSideColumn } from "./run-side-column";

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
  /** The URL's time range (serving runs' charts); null without one (a serving run shows its last hour of data). */
  range?: TimeRange | null;
}

/**
 * The live run page, headline charts first. Benchmark runs: headline figures, charts and the point
 * table. Pipeline runs (extraction/generation, or any run reporting progress): progress, workers, S3
 * panel and uploads over time. Training runs (or any run with metric points): one zoomable chart
 * per metric. Every run: the `pitwall run` command, events and artifacts when it has them, and a
 * side column (tags, notes, configuration, lineage) on the right from 1280 px.
 */
export function RunDetailView({
  initial,
  initialProgress,
  initialServing,
  renderedAt,
  canEdit = false,
  range = null,
}: RunDetailViewProps) {
  const rangeSearch = range ? timeRangeSearch(range) : "";
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
    // Pushed values keep what did not change (applyPatch); comparing 50 × 1,000 points deeply
    // on every push cost more than the redraw it saved.
    structuralSharing: false,
    refetchInterval,
    refetchOnWindowFocus,
  });
  const progress = progressQuery.data;
  const serverNow = useServerNow(progress.asOf, progressQuery.dataUpdatedAt);
  // Nothing is pushed when a worker goes quiet: re-derive "stale" on the server's clock each second.
  const lastPushAt =
    Date.parse(fetched.lastPushAt) >= Date.parse(progress.lastPushAt)
      ? fetched.lastPushAt
      : progress.lastPushAt;
  const state = liveRunState(fetched.state, lastPushAt, progress.stallAfterS, serverNow);
  const run = useMemo(
    () => (state === fetched.state ? fetched : { ...fetched, state }),
    [fetched, state],
  );

  const isBenchmark = run.kind === "benchmark";
  const isPipeline =
    run.kind === "extraction" || run.kind === "generation" || progress.workers.length > 0;
  const isServing = run.kind === "serving";
  // A serving run's metrics (step = unix ms) are drawn against time by its telemetry card.
  const isTraining = run.kind === "training" || (!isServing && (metrics?.series.length ?? 0) > 0);
  // A finished benchmark's sweep progress ("8 / 8 levels", rate —) says nothing its charts do not.
  const finishedBenchmark = isBenchmark && run.state !== "running" && run.state !== "stale";
  const showProgress =
    !finishedBenchmark &&
    (isPipeline || progress.progress.done !== null || progress.progress.total !== null);
  const hasActivity =
    progress.events.length > 0 || progress.artifactTotal > 0 || progress.command !== null;

  // The command card already shows what `pitwall run` put in the config.
  const annotationSource = {
    events: progress.events,
    artifacts: progress.artifacts,
    startedAt: run.startedAt,
    lastPushAt,
  };
  const configShown = progress.command
    ? Object.fromEntries(Object.entries(run.config).filter(([k]) => !COMMAND_KEYS.has(k)))
    : run.config;
  return (
    <div className="grid gap-4">
      <RunHeader run={run} live={live} canEdit={canEdit} actions={<ExportMenu runId={run.id} />} />
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh this run ({error.message}); showing the last data received.
        </p>
      )}
      {/* From 1280 px the configuration, tags, notes and lineage sit in a right column; below, after everything else. */}
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(18rem,22rem)] xl:items-start">
        <div className="grid min-w-0 gap-4" data-testid="run-main-column">
          {showProgress && (
            <ProgressCard view={progress} state={run.state} serverNowMs={serverNow} />
          )}
          {/* Drafter evals (τ by checkpoint): renders nothing for a non-eval run without eval results.
              A training run shows its loss / lr / grad_norm charts first and its evals below them. */}
          {run.kind !== "training" && <EvalSections runId={run.id} kind={run.kind} />}
          {isBenchmark ? (
            <>
              <BenchmarkSections
                run={run}
                initialServing={initialServing}
                renderedAt={renderedAt}
              />
              {isTraining && (
                <MetricSections runId={run.id} metrics={metrics} activity={annotationSource} />
              )}
              {hasActivity && (
                <ActivitySections view={progress} state={run.state} artifactTitle="Artifacts" />
              )}
            </>
          ) : (
            <>
              {isServing && (
                <>
                  <TimeRangePicker
                    key={rangeSearch}
                    range={range ?? DEFAULT_RANGE}
                    nowMs={renderedAt}
                  />
                  <RunServingCard
                    runId={run.id}
                    initial={initialServing}
                    renderedAt={renderedAt}
                    ownRun
                    rangeSearch={rangeSearch}
                  />
                </>
              )}
              {isPipeline && <PipelineSections view={progress} />}
              {isTraining && (
                <MetricSections runId={run.id} metrics={metrics} activity={annotationSource} />
              )}
              {run.kind === "training" && <EvalSections runId={run.id} kind={run.kind} />}
              {/* Eval runs show their results in the eval sections above. */}
              {!isPipeline && !isTraining && !isServing && run.kind !== "eval" && (
                <Card>
                  <CardContent className="text-sm text-muted-fg">
                    {run.state === "running"
                      ? "Waiting for the first progress report or metric point…"
                      : `This ${run.kind} run reported no progress and no metrics.`}
                  </CardContent>
                </Card>
              )}
              <ActivitySections
                view={progress}
                state={run.state}
                artifactTitle={isTraining ? "Saved checkpoints" : "Artifacts"}
              />
            </>
          )}
        </div>
        <RunSideColumn run={run} config={configShown} artifacts={progress.artifacts} />
      </div>
    </div>
  );
}
