"use client";

import { useNow } from "@/components/live/use-now";
import { formatDurationIn, type DurationUnit } from "@/lib/column-format";
import { formatDuration, MISSING } from "@/lib/format";
import type { RunSummary } from "@/lib/view-models";

/**
 * Run duration; ticks while the run is running (a stale run's clock stops at its last push). With
 * `unit` (a table column whose header names the unit) it prints a bare number in that unit.
 */
export function RunDuration({
  run,
  className,
  unit,
}: {
  run: Pick<RunSummary, "state" | "startedAt" | "endedAt" | "lastPushAt" | "durationS">;
  className?: string;
  unit?: DurationUnit;
}) {
  const now = useNow();
  let seconds = run.durationS;
  // Whole seconds while ticking: a live clock with decimals is noise.
  if (!run.endedAt && run.state === "running")
    seconds = Math.floor((now - Date.parse(run.startedAt)) / 1000);
  else if (!run.endedAt && run.state === "stale")
    seconds = (Date.parse(run.lastPushAt) - Date.parse(run.startedAt)) / 1000;
  // Imported results often carry no timing: start == end says "unknown", not "took 0 ms".
  if (run.endedAt && seconds === 0)
    return (
      <span className={className} title="No timing was reported for this run">
        {MISSING}
      </span>
    );
  const text = unit ? formatDurationIn(seconds, unit) : formatDuration(seconds);
  // "18.7 s" beside "Started 7 min ago" read as a mistake (issue 12): a stale run's clock says where it stopped.
  if (!run.endedAt && run.state === "stale") {
    return (
      <span className={className} title="From the start to the last push; nothing has come since">
        {text} <span className="text-stale">{unit ? "(last push)" : "to the last push"}</span>
      </span>
    );
  }
  return (
    <span className={className} title={unit ? formatDuration(seconds) : undefined}>
      {text}
    </span>
  );
}
