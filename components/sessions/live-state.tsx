import { RelativeTime } from "@/components/runs/relative-time";
import { cn } from "@/lib/utils";
import type { LiveState, SessionLiveView } from "@/lib/view-models/sessions";

const LABEL: Record<LiveState, string> = {
  waiting: "Waiting for a person",
  working: "Working",
  idle: "Idle",
  ended: "Ended",
};
const TONE: Record<LiveState, string> = {
  waiting: "bg-stale-bg text-stale",
  working: "bg-running-bg text-running",
  idle: "bg-neutral-bg text-neutral",
  ended: "bg-neutral-bg text-muted-fg",
};
const DOT: Record<LiveState, string> = {
  waiting: "bg-stale",
  working: "bg-running animate-pulse",
  idle: "bg-neutral",
  ended: "bg-muted-fg",
};

/**
 * A live session's state as a labelled badge (never colour alone), with the time it entered it and
 * what it waits for; a session gone quiet (no event or heartbeat for 90 s) reads "No signal" in
 * amber, like a stale run, with the state it last reported.
 */
export function LiveStateBadge({ live }: { live: SessionLiveView }) {
  if (live.noSignal) {
    return (
      <span className="flex min-w-0 flex-col gap-0.5">
        <span
          className="inline-flex w-fit items-center gap-1.5 rounded bg-stale-bg px-1.5 py-0.5 text-xs font-medium text-stale"
          data-live-state="no_signal"
          title="No event and no heartbeat from its agent for 90 s: killed, asleep or cut off"
        >
          <span aria-hidden className="size-1.5 rounded-full border border-stale" />
          No signal
        </span>
        <span className="truncate text-xs text-muted-fg">
          last {LABEL[live.state].toLowerCase()}, heard{" "}
          <RelativeTime
            iso={
              live.lastSignalAt && live.lastSignalAt > live.since ? live.lastSignalAt : live.since
            }
          />
        </span>
      </span>
    );
  }
  return (
    <span className="flex min-w-0 flex-col gap-0.5">
      <span
        className={cn(
          "inline-flex w-fit items-center gap-1.5 rounded px-1.5 py-0.5 text-xs font-medium",
          TONE[live.state],
        )}
        data-live-state={live.state}
      >
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
