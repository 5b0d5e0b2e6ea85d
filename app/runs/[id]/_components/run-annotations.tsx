"use client";

import { useQuery } from "@tanstack/react-query";

import { fetchRunPlans } from "@/lib/api/fetchers/plans";
import { runPlansQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import { placeAnnotations, runAnnotations, type PlacedAnnotation } from "@/lib/metrics/annotations";
import { cn } from "@/lib/utils";
import type { RunMetricsView } from "@/lib/view-models/metrics";
import type { RunProgressView } from "@/lib/view-models/pipeline";

import { seriesStepRange } from "./series-step-range";

/** What a run page already has that annotations come from: events, artifacts, and the run's start and last push. */
export interface AnnotationSource {
  events: RunProgressView["events"];
  artifacts: RunProgressView["artifacts"];
  startedAt: string;
  lastPushAt: string;
}

/**
 * The run's annotations placed on its step axis: checkpoints, warnings and alerts, and decisions
 * on its plans (read with `GET /api/plans?run=`). Time-only ones are placed between the run's
 * start (first step) and last push (last step), through the checkpoints' (time, step) pairs.
 */
export function useRunAnnotations(
  runId: number,
  metrics: RunMetricsView | undefined,
  activity: AnnotationSource | undefined,
): PlacedAnnotation[] {
  const { data: plans } = useQuery({
    queryKey: runPlansQueryKey(runId),
    queryFn: ({ signal }) => fetchRunPlans(runId, signal),
    enabled: activity !== undefined,
  });
  if (!activity || !metrics) return [];
  const range = seriesStepRange(metrics.series);
  if (!range) return [];
  const anchors = [
    { tMs: Date.parse(activity.startedAt), step: range.lo },
    { tMs: Date.parse(activity.lastPushAt), step: range.hi },
  ];
  return placeAnnotations(
    runAnnotations({
      artifacts: activity.artifacts,
      events: activity.events,
      plans: plans?.plans ?? [],
    }),
    anchors,
  );
}

/** Most warnings and decisions listed under the charts. */
const MAX_LISTED = 8;

const DOT: Record<PlacedAnnotation["kind"], string> = {
  checkpoint: "bg-muted-fg",
  event: "bg-stale",
  plan: "bg-link",
};

/** The annotations' texts by step under the charts (lines carry no text of their own); checkpoints summed up in one line. */
export function AnnotationList({ placed }: { placed: readonly PlacedAnnotation[] }) {
  const allNotes = placed.filter((a) => a.kind !== "checkpoint");
  // The latest few; the lines show them all.
  const notes = allNotes.slice(-MAX_LISTED);
  const checkpoints = placed.length - allNotes.length;
  if (placed.length === 0) return null;
  return (
    <ul
      className="grid gap-0.5 text-xs text-muted-fg"
      data-testid="annotation-list"
      aria-label="Annotations on the charts"
    >
      {checkpoints > 0 && (
        <li className="flex items-center gap-2">
          <span aria-hidden className="h-3 border-l border-dashed border-muted-fg" />{" "}
          {formatCount(checkpoints)} checkpoint{checkpoints === 1 ? "" : "s"} (dashed lines)
        </li>
      )}
      {allNotes.length > notes.length && (
        <li>
          {formatCount(allNotes.length - notes.length)} earlier warnings and decisions (lines only)
        </li>
      )}
      {notes.map((a, i) => (
        <li key={i} className="flex min-w-0 items-baseline gap-2">
          <span
            aria-hidden
            className={cn(
              "size-2 shrink-0 translate-y-px rounded-full",
              a.tone === "failed" ? "bg-failed" : DOT[a.kind],
            )}
          />
          <span className="shrink-0 tabular-nums">step ≈ {formatCount(a.x)}</span>
          <span className="truncate" title={a.label}>
            {a.label}
          </span>
        </li>
      ))}
    </ul>
  );
}
