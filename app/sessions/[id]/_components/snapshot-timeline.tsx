"use client";

import { Minus, Pencil, Plus } from "lucide-react";
import { useState, type ReactNode } from "react";

import { RelativeTime } from "@/components/runs/relative-time";
import { TodoContent } from "@/components/sessions/todo-item";
import { StatusChange, TodoStatusIcon } from "@/components/sessions/todo-status";
import { Button } from "@/components/ui/button";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDuration } from "@/lib/format";
import { sessionTimeline } from "@/lib/metrics/plan-versions";
import type { PlanSummaryView } from "@/lib/view-models/plans";
import type { SnapshotView } from "@/lib/view-models/sessions";

import { PlanTimelineEntry } from "./plan-timeline-entry";

/** Entries (snapshots and plan events) shown before "Show all". */
const INITIAL_SHOWN = 40;

/** One change line: an icon (with `label` for screen readers, when the icon has none) and the text. */
function Change({
  icon,
  children,
  label,
}: {
  icon: ReactNode;
  children: ReactNode;
  label?: string;
}) {
  return (
    <li className="flex items-start gap-2">
      <span className="mt-0.5 shrink-0">
        {icon}
        {label && <span className="sr-only">{label}: </span>}
      </span>
      <span className="min-w-0">{children}</span>
    </li>
  );
}

/**
 * The session's todo writes and plan versions, newest first. A write: when (relative, and after
 * the session's start), the list's completion then, and what changed against the write before
 * (added, removed, status changes, edits). A plan: each version proposed (v2 revises v1) and the
 * decision on it, with who decided and the comment sent to the agent.
 */
export function SnapshotTimeline({
  timeline,
  plans,
  olderSnapshots,
  startedMs,
}: {
  timeline: SnapshotView[];
  plans: PlanSummaryView[];
  olderSnapshots: number;
  startedMs: number;
}) {
  const [showAll, setShowAll] = useState(false);
  const entries = sessionTimeline(timeline, plans);
  const shown = showAll ? entries : entries.slice(0, INITIAL_SHOWN);
  const total = timeline.length + olderSnapshots;
  const oldestSeq = timeline.at(-1)?.seq;
  const versions = entries.filter((e) => e.kind === "proposed").length;
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Timeline</CardTitle>
        <CardDescription className="tabular-nums">
          {total} snapshot{total === 1 ? "" : "s"}
          {versions > 0 && `, ${versions} plan version${versions === 1 ? "" : "s"}`}, newest first
        </CardDescription>
      </CardHeader>
      {entries.length === 0 ? (
        <p className="px-4 py-6 text-sm text-muted-fg">No todo writes yet.</p>
      ) : (
        <ol aria-label="Snapshots, newest first" className="px-4 py-3">
          {shown.map((entry, i) => {
            const last = i === entries.length - 1;
            if (entry.kind !== "snapshot")
              return (
                <PlanTimelineEntry
                  key={`${entry.kind}-${entry.version.plan.id}`}
                  kind={entry.kind}
                  ts={entry.ts}
                  version={entry.version}
                  startedMs={startedMs}
                  last={last}
                />
              );
            const snap = entry.snapshot;
            const oldest = snap.seq === oldestSeq;
            const nothing =
              snap.added.length +
                snap.removed.length +
                snap.statusChanges.length +
                snap.edited.length ===
              0;
            return (
              <li
                key={snap.seq}
                className="relative pb-4 pl-5 last:pb-0"
                aria-label={`Snapshot #${snap.seq}`}
              >
                <span
                  aria-hidden
                  className="absolute top-[7px] left-0 size-2 rounded-full border-2 border-running bg-card"
                />
                {!last && (
                  <span aria-hidden className="absolute top-4 bottom-0 left-[3px] w-px bg-border" />
                )}
                <div className="flex flex-wrap items-baseline gap-x-2 text-xs text-muted-fg tabular-nums">
                  <RelativeTime iso={snap.ts} className="text-[13px] font-medium text-foreground" />
                  <span>+{formatDuration((Date.parse(snap.ts) - startedMs) / 1000)}</span>
                  <span>#{snap.seq}</span>
                  <span className="ml-auto">
                    {snap.completed}/{snap.itemCount} completed
                  </span>
                </div>
                <ul className="mt-1 grid gap-1 text-[13px] leading-5">
                  {oldest && (
                    <li className="text-xs text-muted-fg">
                      {olderSnapshots > 0
                        ? `Earliest snapshot shown (${olderSnapshots} older not loaded):`
                        : "List created with"}{" "}
                      {snap.itemCount} item{snap.itemCount === 1 ? "" : "s"}
                    </li>
                  )}
                  {snap.added.map((item, k) =>
                    oldest ? (
                      <Change key={`a${k}`} icon={<TodoStatusIcon status={item.status} />}>
                        <TodoContent item={item} />
                      </Change>
                    ) : (
                      <Change
                        key={`a${k}`}
                        label="added"
                        icon={<Plus aria-hidden className="size-4 text-succeeded" />}
                      >
                        <TodoContent item={item} />{" "}
                        <span className="text-xs text-muted-fg">
                          added as {item.status.replace(/_/g, " ")}
                        </span>
                      </Change>
                    ),
                  )}
                  {snap.statusChanges.map((c, k) => (
                    <Change key={`s${k}`} icon={<TodoStatusIcon status={c.to} />}>
                      <TodoContent item={c.item} plain /> <StatusChange from={c.from} to={c.to} />
                    </Change>
                  ))}
                  {snap.edited.map((e, k) => (
                    <Change
                      key={`e${k}`}
                      label="edited"
                      icon={<Pencil aria-hidden className="size-4 text-muted-fg" />}
                    >
                      <span className="text-muted-fg line-through">{e.from.content}</span> →{" "}
                      <TodoContent item={e.to} />
                    </Change>
                  ))}
                  {snap.removed.map((item, k) => (
                    <Change
                      key={`r${k}`}
                      label="removed"
                      icon={<Minus aria-hidden className="size-4 text-failed" />}
                    >
                      <span className="text-muted-fg line-through">{item.content}</span>{" "}
                      <span className="text-xs text-muted-fg">removed</span>
                    </Change>
                  ))}
                  {nothing && !oldest && (
                    <li className="text-xs text-muted-fg">Rewritten without changes</li>
                  )}
                </ul>
              </li>
            );
          })}
        </ol>
      )}
      {entries.length > INITIAL_SHOWN && (
        <div className="border-t border-border px-4 py-2">
          <Button variant="ghost" size="sm" onClick={() => setShowAll((v) => !v)}>
            {showAll ? "Show the latest only" : `Show all ${entries.length}`}
          </Button>
        </div>
      )}
    </Card>
  );
}
