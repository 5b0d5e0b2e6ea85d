"use client";

import { useQuery } from "@tanstack/react-query";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { SessionsEmptyState } from "@/components/sessions/sessions-empty-state";
import { fetchSessions } from "@/lib/api/fetchers/sessions";
import { sessionsQueryKey } from "@/lib/api/query-keys";
import type { SessionListView } from "@/lib/view-models/sessions";

import { SessionsTable } from "./sessions-table";

/** The live session list: one row per agent session, refreshed when any session gets a snapshot. */
export function SessionsView({
  initial,
  renderedAt,
  origin,
}: {
  initial: SessionListView;
  renderedAt: number;
  origin: string;
}) {
  const live = useLiveTopics(["sessions"]);
  const { data, error } = useQuery({
    queryKey: sessionsQueryKey,
    queryFn: ({ signal }) => fetchSessions(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Sessions</h1>
        {data.sessions.length > 0 && (
          <span className="text-sm text-muted-fg tabular-nums">
            {data.sessions.length} session{data.sessions.length === 1 ? "" : "s"}
          </span>
        )}
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the list ({error.message}); showing the last data received.
        </p>
      )}
      {data.sessions.length === 0 ? (
        <SessionsEmptyState origin={origin} />
      ) : (
        <SessionsTable sessions={data.sessions} />
      )}
    </div>
  );
}
