"use client";

import { TriangleAlert } from "lucide-react";

import { useTimeZone } from "@/components/preferences/preferences-provider";
import { TodoItemLine } from "@/components/sessions/todo-item";
import { todoStatusLabel } from "@/components/sessions/todo-status";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { formatAbsoluteTime, formatDuration } from "@/lib/format";
import { isFinishedStatus } from "@/lib/metrics/todos";
import type { SessionDetailView, TodoItemHistoryView } from "@/lib/view-models/sessions";

interface CurrentListProps {
  session: SessionDetailView;
  byKey: ReadonlyMap<string, TodoItemHistoryView>;
  stuckKeys: ReadonlySet<string>;
  serverNow: number;
  stuckMin: number;
  stuckText: string;
  onStuckText: (text: string) => void;
}

/** The latest snapshot's items in the agent's order, each with how long it has been in its status; stuck items highlighted. */
export function CurrentList({
  session,
  byKey,
  stuckKeys,
  serverNow,
  stuckMin,
  stuckText,
  onStuckText,
}: CurrentListProps) {
  const zone = useTimeZone();
  const stuckCount =
    session.leftOpenCount > 0 ? 0 : session.items.filter((i) => stuckKeys.has(i.historyKey)).length;
  return (
    <Card className="min-w-0">
      <CardHeader className="flex-wrap">
        <CardTitle>Current list</CardTitle>
        <CardDescription className="tabular-nums">
          {session.snapshotCount === 0
            ? "no todo list yet"
            : `${session.items.length} item${session.items.length === 1 ? "" : "s"} in the latest snapshot`}
        </CardDescription>
        <label className="ml-auto flex items-center gap-1.5 text-xs text-muted-fg">
          Stuck when in progress over
          <Input
            type="number"
            inputMode="numeric"
            min={1}
            step={5}
            value={stuckText}
            onChange={(e) => onStuckText(e.currentTarget.value)}
            className="h-7 w-16 px-2 text-right tabular-nums"
            aria-label="Stuck threshold in minutes"
          />
          min
        </label>
      </CardHeader>
      {stuckCount > 0 && (
        <p
          role="status"
          className="flex items-center gap-2 border-b border-border bg-stale-bg px-4 py-1.5 text-xs font-medium text-stale"
        >
          <TriangleAlert aria-hidden className="size-3.5" />
          {stuckCount} item{stuckCount === 1 ? " has" : "s have"} been in progress for more than{" "}
          {stuckMin} min
        </p>
      )}
      {session.items.length === 0 ? (
        <p className="px-4 py-6 text-sm text-muted-fg">
          {session.snapshotCount === 0
            ? "This session has no todo list yet: it appears with the agent's first todo write."
            : "The agent's latest todo list is empty."}
        </p>
      ) : (
        <ul className="divide-y divide-border" aria-label="Current todo items">
          {session.items.map((item, i) => {
            const h = byKey.get(item.historyKey);
            // The session ended: nobody works on its in-progress items any more.
            const leftOpen = session.leftOpenCount > 0 && item.status === "in_progress";
            const stuck = !leftOpen && stuckKeys.has(item.historyKey);
            const open = h && !isFinishedStatus(item.status);
            const forMs = h ? serverNow - h.statusSinceMs : null;
            return (
              <TodoItemLine
                key={`${item.historyKey}-${i}`}
                item={leftOpen ? { ...item, status: "left_open" } : item}
                highlight={stuck}
                note={
                  stuck && forMs !== null ? (
                    <p className="text-xs font-medium text-stale">
                      <TriangleAlert aria-hidden className="mr-1 inline size-3.5 -translate-y-px" />
                      Stuck: in progress for {formatDuration(forMs / 1000)}
                    </p>
                  ) : null
                }
                aside={
                  open && forMs !== null ? (
                    <span
                      className="text-xs whitespace-nowrap text-muted-fg tabular-nums"
                      title={`${todoStatusLabel(item.status)} since ${formatAbsoluteTime(new Date(h.statusSinceMs).toISOString(), zone)}`}
                    >
                      {formatDuration(forMs / 1000)}
                    </span>
                  ) : null
                }
              />
            );
          })}
        </ul>
      )}
    </Card>
  );
}
