"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useServerNow } from "@/components/pipelines/use-server-now";
import { RelativeTime } from "@/components/runs/relative-time";
import { LiveStateBadge } from "@/components/sessions/live-state";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { TodoProgress } from "@/components/sessions/todo-progress";
import { MetaItem } from "@/components/ui/meta-item";
import { fetchPlans } from "@/lib/api/fetchers/plans";
import { fetchSession } from "@/lib/api/fetchers/sessions";
import { plansQueryKey, sessionQueryKey, sessionTopic } from "@/lib/api/query-keys";
import { MISSING } from "@/lib/format";
import { sessionClockMs } from "@/lib/metrics/session-clock";
import { stuckItems } from "@/lib/metrics/todos";
import { hostPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { PlanListView } from "@/lib/view-models/plans";
import {
  SESSION_FEED_NOTE,
  sessionFeed,
  sessionLabel,
  type SessionDetailView,
  type SessionFeed,
} from "@/lib/view-models/sessions";

import { CurrentList } from "./current-list";
import { ItemHistoryTable } from "./item-history-table";
import { SessionPlans } from "./session-plans";
import { SnapshotTimeline } from "./snapshot-timeline";
import { UnapprovedWorkWarning } from "./unapproved-work-warning";

/** Default "stuck" threshold: an item in progress for longer than this many minutes is highlighted. */
const DEFAULT_STUCK_MIN = 30;

/**
 * The live session page: header, current list (stuck items highlighted, threshold adjustable),
 * item histories, plans linked to the session, and the snapshot timeline with diffs.
 */
export function SessionDetail({
  initial,
  initialPlans,
  renderedAt,
}: {
  initial: SessionDetailView;
  initialPlans: PlanListView;
  renderedAt: number;
}) {
  const id = initial.id;
  const live = useLiveTopics([sessionTopic(id), "plans"]);
  const refetchInterval = refetchIntervalFor(live);
  const {
    data: session,
    error,
    dataUpdatedAt,
  } = useQuery({
    queryKey: sessionQueryKey(id),
    queryFn: ({ signal }) => fetchSession(id, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval,
  });
  const { data: plans } = useQuery({
    queryKey: plansQueryKey(id),
    queryFn: ({ signal }) => fetchPlans({ session: id, signal }),
    initialData: initialPlans,
    initialDataUpdatedAt: renderedAt,
    refetchInterval,
  });
  // Durations run on the session's own clock: an imported session's time ends at its last snapshot.
  const serverNow = sessionClockMs(session, useServerNow(session.asOf, dataUpdatedAt));
  const [stuckText, setStuckText] = useState(String(DEFAULT_STUCK_MIN));
  const parsed = Number(stuckText);
  const stuckMin =
    stuckText.trim() !== "" && Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_STUCK_MIN;

  const byKey = useMemo(
    () => new Map(session.histories.map((h) => [h.key, h])),
    [session.histories],
  );
  const stuck = stuckItems(session.histories, serverNow, stuckMin * 60_000);
  const stuckKeys = new Set(stuck.map((s) => s.history.key));
  const startedMs = Date.parse(session.startedAt);
  const asOfMs = Date.parse(session.asOf);
  const connected = live === "open";

  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1
            className="min-w-0 truncate text-lg font-semibold tracking-tight max-md:wrap-anywhere max-md:whitespace-normal"
            title={sessionLabel(session)}
          >
            {sessionLabel(session)}
          </h1>
          <TodoProgress
            progress={session.progress}
            barClassName="h-2 w-28"
            className="text-[13px]"
          />
          <SessionFeedPill
            feed={sessionFeed(session)}
            connected={connected}
            lastUpdateAt={session.lastUpdateAt}
          />
        </div>
        <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
          {session.live && (
            <MetaItem label="State">
              <LiveStateBadge live={session.live} />
            </MetaItem>
          )}
          <MetaItem label="Source">
            <SessionSourceLabel source={session.source} className="text-foreground" />
          </MetaItem>
          <MetaItem label="Host">
            {session.host ? (
              <Link
                href={hostPath(session.host)}
                className="rounded-sm text-foreground hover:underline"
              >
                {session.host}
              </Link>
            ) : (
              <span className="text-foreground">{MISSING}</span>
            )}
          </MetaItem>
          <MetaItem label="Started">
            <RelativeTime iso={session.startedAt} className="text-foreground" />
          </MetaItem>
          <MetaItem label="Snapshots">
            <span className="text-foreground">{session.snapshotCount}</span>
          </MetaItem>
          <MetaItem label="Key">
            <span className="font-mono text-xs text-foreground">{session.key}</span>
          </MetaItem>
        </dl>
      </div>
      <UnapprovedWorkWarning work={session.unapprovedWork} />
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh this session ({error.message}); showing the last data received.
        </p>
      )}

      <div className="grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(380px,480px)]">
        <div className="grid min-w-0 gap-4">
          <CurrentList
            session={session}
            byKey={byKey}
            stuckKeys={stuckKeys}
            serverNow={serverNow}
            stuckMin={stuckMin}
            stuckText={stuckText}
            onStuckText={setStuckText}
          />
          <ItemHistoryTable
            histories={session.histories}
            startedMs={startedMs}
            serverNow={serverNow}
            asOfMs={asOfMs}
            stuckKeys={stuckKeys}
          />
        </div>
        <div className="grid min-w-0 gap-4">
          <SessionPlans plans={plans} runs={session.runs} />
          <SnapshotTimeline
            timeline={session.timeline}
            plans={plans.plans}
            olderSnapshots={session.olderSnapshots}
            startedMs={startedMs}
          />
        </div>
      </div>
    </div>
  );
}

const FEED_LABEL: Record<Exclude<SessionFeed, "live">, string> = {
  ended: "Ended",
  imported: "Imported",
};

/**
 * The header's "is this still moving" pill: "Live" (or "Polling" while the live connection is
 * down) only for a session that can still change; an ended or imported one says so in grey, so the
 * connection's "Live" never reads as "this session is live".
 */
function SessionFeedPill({
  feed,
  connected,
  lastUpdateAt,
}: {
  feed: SessionFeed;
  connected: boolean;
  lastUpdateAt: string;
}) {
  const [dot, label, title] =
    feed === "live"
      ? connected
        ? ["bg-succeeded", "Live", "Live: new snapshots appear as the agent writes them"]
        : ["bg-stale", "Polling", "Live connection down: polling every 5 s"]
      : ["bg-muted-fg", FEED_LABEL[feed], SESSION_FEED_NOTE[feed]];
  return (
    <span
      className="ml-auto inline-flex h-6 items-center gap-2 rounded-full border border-border bg-card px-2.5 text-xs text-muted-fg"
      title={title}
      data-testid="session-feed"
      data-feed={feed}
    >
      <span aria-hidden className={cn("size-2 rounded-full", dot)} />
      <span className="font-medium text-foreground">{label}</span>
      <span>
        last todo write <RelativeTime iso={lastUpdateAt} />
      </span>
    </span>
  );
}
