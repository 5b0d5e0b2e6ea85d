"use client";

import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { LiveStateBadge } from "@/components/sessions/live-state";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { TruncatedMarker } from "@/components/sessions/todo-item";
import { TodoProgress } from "@/components/sessions/todo-progress";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { MISSING } from "@/lib/format";
import { hostPath, sessionPath } from "@/lib/paths";
import {
  SESSION_FEED_NOTE,
  sessionFeed,
  sessionLabel,
  type SessionSummaryView,
} from "@/lib/view-models/sessions";

/** The session list: source, live state (and since when), title, host, times, progress and what the agent is doing now. */
export function SessionsTable({ sessions }: { sessions: SessionSummaryView[] }) {
  return (
    <div className="rounded-lg border border-border bg-card">
      <Table className="min-w-[1100px] table-fixed">
        <colgroup>
          <col className="w-32" />
          <col className="w-52" />
          <col className="w-[22%]" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-32" />
          <col />
        </colgroup>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Source</TableHead>
            <TableHead>State</TableHead>
            <TableHead>Title</TableHead>
            <TableHead>Host</TableHead>
            <TableHead>Started</TableHead>
            <TableHead>Last update</TableHead>
            <TableHead>Progress</TableHead>
            <TableHead>In progress</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {sessions.map((s) => (
            <TableRow key={s.id}>
              <TableCell>
                <SessionSourceLabel source={s.source} />
              </TableCell>
              <TableCell className="overflow-hidden py-1.5">
                {s.live ? (
                  <LiveStateBadge live={s.live} />
                ) : sessionFeed(s) === "imported" ? (
                  <span className="text-xs text-muted-fg" title={SESSION_FEED_NOTE.imported}>
                    Imported
                  </span>
                ) : (
                  <span className="text-muted-fg">{MISSING}</span>
                )}
              </TableCell>
              <TableCell className="overflow-hidden">
                <Link
                  href={sessionPath(s.id)}
                  className="block truncate rounded-sm font-medium hover:underline"
                  title={s.title ? `${s.title}\n${s.key}` : s.key}
                >
                  {s.title || s.project ? (
                    sessionLabel(s)
                  ) : (
                    <span className="font-mono text-xs">{s.key}</span>
                  )}
                </Link>
              </TableCell>
              <TableCell className="truncate">
                {s.host ? (
                  <Link href={hostPath(s.host)} className="rounded-sm hover:underline">
                    {s.host}
                  </Link>
                ) : (
                  <span className="text-muted-fg">{MISSING}</span>
                )}
              </TableCell>
              <TableCell className="text-muted-fg">
                <RelativeTime iso={s.startedAt} />
              </TableCell>
              <TableCell className="text-muted-fg">
                <RelativeTime iso={s.lastUpdateAt} />
              </TableCell>
              <TableCell>
                <TodoProgress progress={s.progress} />
              </TableCell>
              <TableCell className="overflow-hidden">
                {s.current ? (
                  <span className="flex min-w-0 items-center gap-1.5" title={s.current.content}>
                    <span aria-hidden className="size-1.5 shrink-0 rounded-full bg-running" />
                    <span className="truncate">{s.current.activeForm ?? s.current.content}</span>
                    {!s.current.activeForm && s.current.truncated && <TruncatedMarker />}
                    {s.inProgressCount > 1 && (
                      <span className="shrink-0 text-xs text-muted-fg">
                        +{s.inProgressCount - 1} more
                      </span>
                    )}
                  </span>
                ) : s.leftOpenCount > 0 ? (
                  <span
                    className="text-muted-fg"
                    title="The session ended while these items were in progress"
                  >
                    {s.leftOpenCount} left open
                  </span>
                ) : (
                  <span className="text-muted-fg">
                    {s.progress && s.progress.total > 0 && s.progress.fractionDone === 1
                      ? "all done"
                      : MISSING}
                  </span>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
