"use client";

import { MetricChart, nonFiniteLabel } from "@/components/charts/metric-chart";
import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { UploadChart } from "@/components/charts/upload-chart";
import { ArtifactTable } from "@/components/pipelines/artifact-table";
import { CommandPanel } from "@/components/pipelines/command-panel";
import { EventList } from "@/components/pipelines/event-list";
import { S3Panel } from "@/components/pipelines/s3-panel";
import { WorkerTable } from "@/components/pipelines/worker-table";
import type { ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount } from "@/lib/format";
import type { RunState } from "@/lib/view-models";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";
import type { RunProgressView } from "@/lib/view-models/pipeline";
import { cn } from "@/lib/utils";

/**
 * Workers, S3 panel and "S3 uploads over time" of a pipeline run. The S3 panel shows when the run
 * reported S3/local/disk counters; an extraction run without them gets the panel with its how-to,
 * any other run (a generation run that never used S3) none.
 */
export function PipelineSections({ view }: { view: RunProgressView }) {
  const showS3 = view.s3 !== null || view.kind === "extraction";
  const unit = view.progress.unit;
  const silent = view.workers.filter((w) => w.state === "stale").length;
  const restarts = view.workers.reduce((s, w) => s + w.restarts, 0);
  return (
    <>
      <div className={cn("grid gap-4", showS3 && "xl:grid-cols-[minmax(0,3fr)_minmax(340px,2fr)]")}>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Workers</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {view.workers.length} worker{view.workers.length === 1 ? "" : "s"}
              {silent > 0 && <span className="font-medium text-stale"> · {silent} silent</span>}
              {restarts > 0 && ` · ${restarts} restart${restarts === 1 ? "" : "s"}`}
            </CardDescription>
          </CardHeader>
          {view.workers.length > 0 ? <WorkerTable workers={view.workers} unit={unit} /> : <CardContent className="text-sm text-muted-fg">No worker has reported progress yet (run.progress).</CardContent>}
        </Card>
        {showS3 && (
        <Card className="min-w-0 xl:self-start">
          <CardHeader>
            <CardTitle>S3 and local disk</CardTitle>
          </CardHeader>
          <CardContent>
            {view.s3 ? (
              <S3Panel s3={view.s3} deletedBeforeUpload={view.activeAlerts.includes("deleted_before_upload")} />
            ) : (
              <p className="text-sm text-muted-fg">
                No S3 counters reported. Workers send them in run.progress as <code className="font-mono text-xs">s3.uploaded</code>, <code className="font-mono text-xs">s3.bytes</code>,{" "}
                <code className="font-mono text-xs">s3.inflight</code>, <code className="font-mono text-xs">s3.failed</code>, <code className="font-mono text-xs">local.deleted</code>,{" "}
                <code className="font-mono text-xs">disk.freeBytes</code>.
              </p>
            )}
          </CardContent>
        </Card>
        )}
      </div>
      {view.s3 && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>S3 uploads over time</CardTitle>
            <CardDescription className="ml-auto">all workers</CardDescription>
          </CardHeader>
          <CardContent>
            <UploadChart uploads={view.uploads} />
          </CardContent>
        </Card>
      )}
    </>
  );
}

/** Losses first, then the other keys alphabetically. */
function orderSeries(series: readonly MetricSeriesView[]): MetricSeriesView[] {
  const loss = (k: string) => (/loss/i.test(k) ? 0 : 1);
  return [...series].sort((a, b) => loss(a.key) - loss(b.key) || a.key.localeCompare(b.key));
}

/** One chart per metric key by step, with NaN/±∞ markers and an "N of M points" note when downsampled. */
export function MetricSections({ metrics }: { metrics: RunMetricsView | undefined }) {
  if (!metrics) {
    return (
      <Card aria-busy="true">
        <CardHeader>
          <CardTitle>Metrics</CardTitle>
        </CardHeader>
        <CardContent className="h-48 text-sm text-muted-fg">Loading metric series…</CardContent>
      </Card>
    );
  }
  if (metrics.series.length === 0) {
    return (
      <Card>
        <CardHeader>
          <CardTitle>Metrics</CardTitle>
        </CardHeader>
        <CardContent className="text-sm text-muted-fg">No metric points yet. Workers send them with run.metrics (key, step, value).</CardContent>
      </Card>
    );
  }
  return (
    <div className={cn("grid gap-4", metrics.series.length > 1 && "lg:grid-cols-2", metrics.series.length > 2 && "2xl:grid-cols-3")}>
      {orderSeries(metrics.series).map((s, i) => {
        const bad = s.points.filter((p) => !Number.isFinite(p.value));
        return (
          <Card key={s.key} className="min-w-0">
            <CardHeader>
              <CardTitle className="truncate font-mono text-[13px]" title={s.key}>
                {s.key}
                <span className="font-sans font-normal text-muted-fg"> by step</span>
              </CardTitle>
              <CardDescription className="ml-auto shrink-0 tabular-nums" title={s.shown < s.total ? "Each step column keeps its first, lowest, highest and last value, so spikes stay visible; every NaN/±∞ is kept" : undefined}>
                {s.shown < s.total ? `${formatCount(s.shown)} of ${formatCount(s.total)} points` : `${formatCount(s.total)} point${s.total === 1 ? "" : "s"}`}
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-2">
              <MetricChart series={s} color={seriesColor(i)} />
              {bad.length > 0 && (
                <p className="text-xs font-medium text-failed tabular-nums" data-testid="nonfinite-note">
                  ▲ {bad.length} non-finite value{bad.length === 1 ? "" : "s"}: {bad.slice(0, 4).map((p) => nonFiniteLabel(p.value, p.step)).join(", ")}
                  {bad.length > 4 ? ", …" : ""}
                </p>
              )}
            </CardContent>
          </Card>
        );
      })}
    </div>
  );
}

/**
 * The `pitwall run` command (with exit code and output tail), events, artifacts/checkpoints and the
 * configuration: shown for every run that has them. `config` is the configuration card.
 */
export function ActivitySections({ view, state, artifactTitle, config }: { view: RunProgressView; state: RunState; artifactTitle: string; config?: ReactNode }) {
  return (
    <>
      {view.command && (
        <div className="grid gap-4 xl:grid-cols-[minmax(0,3fr)_minmax(320px,2fr)]">
          <Card className="min-w-0 xl:self-start">
            <CardHeader>
              <CardTitle>Command</CardTitle>
              <CardDescription className="ml-auto">pitwall run</CardDescription>
            </CardHeader>
            <CardContent>
              <CommandPanel command={view.command} running={state === "running" || state === "stale"} />
            </CardContent>
          </Card>
          {config}
        </div>
      )}
      <div className={cn("grid gap-4 xl:grid-cols-2", !view.command && config && "2xl:grid-cols-3")}>
        <Card className="min-w-0 xl:self-start">
          <CardHeader>
            <CardTitle>Events</CardTitle>
            <CardDescription className="ml-auto tabular-nums">{view.events.length >= 100 ? "latest 100, active alerts first" : "active alerts first"}</CardDescription>
          </CardHeader>
          <EventList events={view.events} className="max-h-[28rem] overflow-y-auto" emptyText="No events yet (run.event, or alerts the server raises)." />
        </Card>
        <Card className="min-w-0 xl:self-start">
          <CardHeader>
            <CardTitle>{artifactTitle}</CardTitle>
            <CardDescription className="ml-auto tabular-nums">{view.artifactTotal > 0 ? formatCount(view.artifactTotal) : ""}</CardDescription>
          </CardHeader>
          {view.artifacts.length > 0 ? (
            <ArtifactTable artifacts={view.artifacts} total={view.artifactTotal} />
          ) : (
            <CardContent className="text-sm text-muted-fg">None yet. Workers report them with run.artifact (kind, uri, sizeBytes, step).</CardContent>
          )}
        </Card>
        {!view.command && config}
      </div>
    </>
  );
}
