"use client";

import type { LiveStatus } from "@/components/live/live-client";
import { useNow } from "@/components/live/use-now";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { formatAbsoluteTime, formatAge } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";

/**
 * "Live · updated 3 s ago": how fresh the run's data is (time since the worker's last push), and
 * whether this page is receiving pushes or polling.
 */
export function FreshnessBadge({
  lastPushAt,
  state,
  live,
}: {
  lastPushAt: string;
  state: RunState;
  live: LiveStatus;
}) {
  const now = useNow();
  const zone = useTimeZone();
  const age = formatAge(lastPushAt, now);
  const running = state === "running";
  const connected = live === "open";
  const dot = running
    ? connected
      ? "bg-running"
      : "bg-stale"
    : state === "stale"
      ? "bg-stale"
      : "bg-neutral";
  const lead = running
    ? connected
      ? "Live"
      : "Polling"
    : state === "stale"
      ? "Stale"
      : "Finished";
  return (
    <span
      className="inline-flex h-6 items-center gap-2 rounded-full border border-border bg-card px-2.5 text-xs text-muted-fg tabular-nums"
      title={`Last push from the worker: ${formatAbsoluteTime(lastPushAt, zone)}${connected ? "" : " · live connection down, polling every 5 s"}`}
    >
      <span className="relative flex size-2" aria-hidden>
        {running && connected && (
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-running opacity-60 motion-reduce:hidden" />
        )}
        <span className={cn("relative inline-flex size-2 rounded-full", dot)} />
      </span>
      <span className="font-medium text-foreground">{lead}</span>
      <span>updated {age} ago</span>
    </span>
  );
}
