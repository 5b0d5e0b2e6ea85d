import { RelativeTime } from "@/components/runs/relative-time";
import { cn } from "@/lib/utils";
import type { LiveState, SessionLiveView } from "@/lib/view-models/sessions";

const LABEL: Record<LiveState, string> = { waiting: "Waiting for a person", working: "Working", idle: "Idle", ended: "Ended" };
const TONE: Record<LiveState, string> = {
  waiting: "bg-stale-bg text-stale",
  working: "bg-running-bg text-running",
  idle: "bg-neutral-bg text-neutral",
  ended: "bg-neutral-bg text-muted-fg",
};
const DOT: Record<LiveState, string> = { waiting: "bg-stale", working: "bg-running animate-pulse", idle: "bg-neutral", ended: "bg-muted-fg" };

/** A live session's state as a labelled badge (never colour alone), with the time it entered it and what it waits for. */
export function LiveStateBadge({ live }: { live: SessionLiveView }) {
  return (
    <span className="flex min-w-0 flex-col gap-0.5">
      <span className={cn("inline-flex w-fit items-center gap-1.5 rounded px-1.5 py-0.5 text-xs font-medium", TONE[live.state])} data-live-state={live.state}>
        <span aria-hidden className={cn("size-1.5 rounded-full", DOT[live.state])} />
        {LABEL[live.state]}
      </span>
      <span className="truncate text-xs text-muted-fg" title={live.detail ?? undefined}>
        since <RelativeTime iso={live.since} />
        {live.detail && live.state === "waiting" ? ` · ${live.detail}` : ""}
      </span>
    </span>
  );
}
