"use client";

import { useTimeZone } from "@/components/preferences/preferences-provider";
import { PriorityBadge } from "@/components/sessions/priority-badge";
import { TruncatedMarker } from "@/components/sessions/todo-item";
import { TodoStatusIcon, todoStatusLabel } from "@/components/sessions/todo-status";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatAbsoluteTime, formatDuration, MISSING } from "@/lib/format";
import { isFinishedStatus } from "@/lib/metrics/todos";
import { cn } from "@/lib/utils";
import type { TodoItemHistoryView } from "@/lib/view-models/sessions";

interface ItemHistoryTableProps {
  histories: TodoItemHistoryView[];
  startedMs: number;
  serverNow: number;
  asOfMs: number;
  stuckKeys: ReadonlySet<string>;
}

/** "+1m 50s" after the session's first snapshot, the absolute time on hover. */
function Offset({ ms, startedMs }: { ms: number | null; startedMs: number }) {
  const zone = useTimeZone();
  if (ms === null) return <span className="text-muted-fg">{MISSING}</span>;
  return (
    <time
      dateTime={new Date(ms).toISOString()}
      title={formatAbsoluteTime(new Date(ms).toISOString(), zone)}
    >
      +{formatDuration((ms - startedMs) / 1000)}
    </time>
  );
}

/**
 * Every item the agent ever listed, in order of first appearance: when it appeared, started and
 * finished (as offsets from the session's start) and how long it sat in each status. The open
 * status keeps counting on the server's clock.
 */
export function ItemHistoryTable({
  histories,
  startedMs,
  serverNow,
  asOfMs,
  stuckKeys,
}: ItemHistoryTableProps) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Item history</CardTitle>
        <CardDescription>times after the first snapshot; hover for the exact time</CardDescription>
      </CardHeader>
      {histories.length === 0 ? (
        <p className="px-4 py-6 text-sm text-muted-fg">No items yet.</p>
      ) : (
        <Table className="min-w-[640px] table-fixed">
          <colgroup>
            <col />
            <col className="w-20" />
            <col className="w-20" />
            <col className="w-20" />
            <col className="w-56" />
          </colgroup>
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Item</TableHead>
              <TableHead>Appeared</TableHead>
              <TableHead>Started</TableHead>
              <TableHead>Finished</TableHead>
              <TableHead>Time in status</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {histories.map((h) => {
              const open = h.currentStatus !== null && !isFinishedStatus(h.currentStatus);
              const times = Object.entries(h.timeInStatusMs)
                .map(
                  ([status, ms]) =>
                    [
                      status,
                      ms +
                        (open && status === h.currentStatus ? Math.max(0, serverNow - asOfMs) : 0),
                    ] as const,
                )
                .filter(([status, ms]) => ms > 0 || (open && status === h.currentStatus));
              return (
                <TableRow key={h.key} className={cn(stuckKeys.has(h.key) && "bg-stale-bg/60")}>
                  <TableCell className="whitespace-normal">
                    <div className="flex items-start gap-2">
                      <TodoStatusIcon
                        status={h.currentStatus ?? h.finalStatus}
                        className={cn("mt-0.5 shrink-0", h.currentStatus === null && "opacity-50")}
                      />
                      <span
                        className={cn(
                          "min-w-0 flex-1 text-[13px] break-words",
                          h.currentStatus === null && "text-muted-fg",
                        )}
                      >
                        {h.content}
                        {h.truncated && <TruncatedMarker />}
                        {h.currentStatus === null && (
                          <span
                            className="ml-1.5 text-xs whitespace-nowrap"
                            title={`Last seen as ${todoStatusLabel(h.finalStatus)}`}
                          >
                            removed <Offset ms={h.removedMs} startedMs={startedMs} />
                          </span>
                        )}
                      </span>
                      <PriorityBadge priority={h.priority} className="mt-0.5 shrink-0" />
                    </div>
                  </TableCell>
                  <TableCell>
                    <Offset ms={h.firstSeenMs} startedMs={startedMs} />
                  </TableCell>
                  <TableCell>
                    <Offset ms={h.startedMs} startedMs={startedMs} />
                  </TableCell>
                  <TableCell>
                    <Offset ms={h.finishedMs} startedMs={startedMs} />
                  </TableCell>
                  <TableCell className="whitespace-normal">
                    <span className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-muted-fg">
                      {times.length === 0
                        ? MISSING
                        : times.map(([status, ms]) => (
                            <span key={status} className="whitespace-nowrap">
                              {todoStatusLabel(status)}{" "}
                              <span className="font-medium text-foreground">
                                {formatDuration(ms / 1000)}
                              </span>
                            </span>
                          ))}
                    </span>
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      )}
    </Card>
  );
}
