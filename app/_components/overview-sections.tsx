"use client";

import Link from "next/link";
import type { ReactNode } from "react";

import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDurationIn, type DurationUnit } from "@/lib/column-format";
import { formatDuration } from "@/lib/format";
import { runPath, runsPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";
import type {
  ActiveRunView,
  FinishedRunView,
  OverviewView as Overview,
} from "@/lib/view-models/overview";

// The overview's building blocks: its section cards, the pager of active runs, the order of
// running and stale runs, and a recently finished run's row (normal and wall layouts).

/** "Runs 51–100 of 40,000" with previous/next page links, when the active runs span more than one page. */
export function ActivePager({
  counts,
  shown,
  wall,
}: {
  counts: Overview["activeCounts"];
  shown: number;
  wall: boolean;
}) {
  if (counts.total <= counts.limit && counts.offset === 0) return null;
  const page = Math.floor(counts.offset / counts.limit) + 1;
  const href = (p: number) =>
    `/?${new URLSearchParams({ ...(wall ? { wall: "1" } : {}), ...(p > 1 ? { page: String(p) } : {}) })}`;
  const fmt = (n: number) => n.toLocaleString("en-US");
  return (
    <nav
      aria-label="Pages of active runs"
      className={cn(
        "flex items-center gap-3 border-t border-border px-4 py-2 text-muted-fg tabular-nums",
        wall ? "text-base" : "text-sm",
      )}
    >
      <span>
        {shown > 0
          ? `Runs ${fmt(counts.offset + 1)}–${fmt(counts.offset + shown)} of ${fmt(counts.total)}`
          : `No runs on this page (${fmt(counts.total)} active)`}
        <span className="hidden sm:inline"> · stale and alerting first</span>
      </span>
      {/* A wall has no pointer: it pages through what it holds by itself, so no page links there. */}
      <span className={cn("ml-auto flex gap-2", wall && "hidden")}>
        {page > 1 && (
          <Link
            href={href(page - 1)}
            className={buttonVariants({ variant: "outline", size: "sm" })}
          >
            Previous
          </Link>
        )}
        {counts.offset + shown < counts.total && (
          <Link
            href={href(page + 1)}
            className={buttonVariants({ variant: "outline", size: "sm" })}
          >
            Next
          </Link>
        )}
      </span>
    </nav>
  );
}

/** Stale first (most recently silent on top), then running in the server's order (newest start). */
export function orderRuns(runs: ReadonlyArray<{ run: ActiveRunView; state: RunState }>) {
  const stale = runs
    .filter((r) => r.state === "stale")
    .sort((a, b) => Date.parse(b.run.lastPushAt) - Date.parse(a.run.lastPushAt));
  return [...stale, ...runs.filter((r) => r.state !== "stale")];
}

/** A titled card of the overview (tighter header on the wall). */
export function Section({
  title,
  note,
  wall,
  fit,
  children,
}: {
  title: string;
  note?: ReactNode;
  wall: boolean;
  /** On the wall: "yield" rows are dropped so that the "keep" section's first row fits (useWallFit). */
  fit?: "yield" | "keep";
  children: ReactNode;
}) {
  return (
    <Card
      className="min-w-0 overflow-hidden"
      data-wall-section={wall ? "" : undefined}
      data-wall-yield={wall && fit === "yield" ? "" : undefined}
      data-wall-keep={wall && fit === "keep" ? "" : undefined}
    >
      <CardHeader className={wall ? "py-1.5" : undefined}>
        <CardTitle className={wall ? "text-lg" : undefined}>{title}</CardTitle>
        {note && (
          <CardDescription className={cn("ml-auto", wall && "text-sm")}>{note}</CardDescription>
        )}
      </CardHeader>
      {children}
    </Card>
  );
}

/** The link to runs stale for over a day (not listed on the overview). */
export function OlderStale({ count }: { count: number }) {
  return (
    <Link href={runsPath({ status: "stale" })} className="text-stale hover:underline">
      + {count} stale for over a day
    </Link>
  );
}

/** One recently finished run: state, name, failure or count-mismatch note, kind, host, duration in the section's unit. */
export function FinishedRow({
  run,
  wall,
  unit,
}: {
  run: FinishedRunView;
  wall: boolean;
  unit: DurationUnit;
}) {
  const detail =
    run.state === "failed"
      ? (run.error ?? (run.exitCode !== null ? `exit code ${run.exitCode}` : null))
      : null;
  return (
    <li
      className={cn(
        "grid items-center gap-x-3 border-b border-border px-4 last:border-b-0",
        wall
          ? "grid-cols-[auto_minmax(0,1fr)_auto] py-2.5 text-base"
          : "grid-cols-[auto_minmax(0,1fr)] py-2 text-[13px] md:grid-cols-[auto_minmax(0,1fr)_auto]",
      )}
    >
      <StatusBadge
        state={run.state}
        mismatches={run.countMismatches}
        className={wall ? "h-6 text-sm [&_svg]:size-4" : undefined}
      />
      <div className="min-w-0">
        {/* The wall has no hover for the tooltip: there the name and notes wrap instead of ending in "…". */}
        {/* And on a phone: there the row stacks and the name wraps (it was cut to "Q…" beside the figures). */}
        <Link
          href={runPath(run.id)}
          className={cn(
            "block font-medium hover:underline",
            wall ? "break-words" : "truncate max-md:break-words max-md:whitespace-normal",
          )}
          title={run.name}
        >
          {run.name}
        </Link>
        {detail && (
          <div
            title={detail}
            className={cn("text-failed", wall ? "text-sm break-words" : "truncate text-xs")}
          >
            {detail}
          </div>
        )}
        {run.state === "succeeded" && run.countMismatches[0] && (
          <div
            title={run.countMismatches[0].message}
            className={cn("text-stale", wall ? "text-sm break-words" : "truncate text-xs")}
          >
            {run.countMismatches[0].message}
          </div>
        )}
      </div>
      <div
        className={cn(
          "text-muted-fg tabular-nums",
          wall ? "text-right text-sm" : "col-start-2 text-xs md:col-start-auto md:text-right",
        )}
      >
        <div>
          {run.kind} · {run.host} ·{" "}
          <span title={formatDuration(run.durationS)}>{formatDurationIn(run.durationS, unit)}</span>
        </div>
        <div>
          ended <RelativeTime iso={run.endedAt} />
        </div>
      </div>
    </li>
  );
}
