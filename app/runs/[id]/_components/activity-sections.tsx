"use client";

import { UploadChart } from "@/components/charts/upload-chart";
import { ArtifactTable } from "@/components/pipelines/artifact-table";
import { CommandPanel } from "@/components/pipelines/command-panel";
import { EventList } from "@/components/pipelines/event-list";
import { S3Panel } from "@/components/pipelines/s3-panel";
import { WorkerTable } from "@/components/pipelines/worker-table";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";
import type { RunProgressView } from "@/lib/view-models/pipeline";

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
      <div
        className={cn("grid gap-4", showS3 && "2xl:grid-cols-[minmax(0,3fr)_minmax(340px,2fr)]")}
      >
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Workers</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {view.workers.length} worker{view.workers.length === 1 ? "" : "s"}
              {silent > 0 && <span className="font-medium text-stale"> · {silent} silent</span>}
              {restarts > 0 && ` · ${restarts} restart${restarts === 1 ? "" : "s"}`}
            </CardDescription>
          </CardHeader>
          {view.workers.length > 0 ? (
            <WorkerTable workers={view.workers} unit={unit} />
          ) : (
            <CardContent className="text-sm text-muted-fg">
              No worker has reported progress yet (run.progress).
            </CardContent>
          )}
        </Card>
        {showS3 && (
          <Card className="min-w-0 2xl:self-start">
            <CardHeader>
              <CardTitle>S3 and local disk</CardTitle>
            </CardHeader>
            <CardContent>
              {view.s3 ? (
                <S3Panel
                  s3={view.s3}
                  deletedBeforeUpload={view.activeAlerts.includes("deleted_before_upload")}
                />
              ) : (
                <p className="text-sm text-muted-fg">
                  No S3 counters reported. Workers send them in run.progress as{" "}
                  <code className="font-mono text-xs">s3.uploaded</code>,{" "}
                  <code className="font-mono text-xs">s3.bytes</code>,{" "}
                  <code className="font-mono text-xs">s3.inflight</code>,{" "}
                  <code className="font-mono text-xs">s3.failed</code>,{" "}
                  <code className="font-mono text-xs">local.deleted</code>,{" "}
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

/**
 * The `pitwall run` command (with exit code and output tail), events and artifacts/checkpoints:
 * shown for every run that has them (the configuration is in the page's side column).
 */
export function ActivitySections({
  view,
  state,
  artifactTitle,
}: {
  view: RunProgressView;
  state: RunState;
  artifactTitle: string;
}) {
  return (
    <>
      {view.command && (
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>{view.command.command ? "Command" : "Output"}</CardTitle>
            {view.command.command && (
              <CardDescription className="ml-auto">pitwall run</CardDescription>
            )}
          </CardHeader>
          <CardContent>
            <CommandPanel
              command={view.command}
              running={state === "running" || state === "stale"}
            />
          </CardContent>
        </Card>
      )}
      <div className="grid gap-4 2xl:grid-cols-2">
        <Card className="min-w-0 2xl:self-start">
          <CardHeader>
            <CardTitle>Events</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {view.events.length >= 100
                ? "latest 100, active alerts first"
                : "active alerts first"}
            </CardDescription>
          </CardHeader>
          <EventList
            events={view.events}
            className="max-h-[28rem] overflow-y-auto"
            scrollLabel="Events"
            emptyText="No events yet (run.event, or alerts the server raises)."
          />
        </Card>
        <Card className="min-w-0 2xl:self-start">
          <CardHeader>
            <CardTitle>{artifactTitle}</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {view.artifactTotal > 0 ? formatCount(view.artifactTotal) : ""}
            </CardDescription>
          </CardHeader>
          {view.artifacts.length > 0 ? (
            <ArtifactTable
              runId={view.runId}
              artifacts={view.artifacts}
              total={view.artifactTotal}
            />
          ) : (
            <CardContent className="text-sm text-muted-fg">
              None yet. Workers report them with run.artifact (kind, uri, sizeBytes, step).
            </CardContent>
          )}
        </Card>
      </div>
    </>
  );
}
