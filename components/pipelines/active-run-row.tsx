"use client";

import { OctagonAlert } from "lucide-react";
import Link from "next/link";

import { StatusBadge } from "@/components/runs/status-badge";
import { formatAge, formatCount } from "@/lib/format";
import { runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";
import type { ActiveRunView } from "@/lib/view-models/overview";

import { ProgressBar, ProgressFiguresText } from "./progress-line";
import { formatLatestMetrics } from "./units";
import { useAlertTitle } from "./use-alert-title";

/** The run's latest metrics in one line; a serving run's steps are scrape times (unix ms), not steps: no "@ step". */
function metricsText(run: ActiveRunView): string {
  return formatLatestMetrics(run.latestMetrics, run.kind !== "serving");
}

/** "20 checkpoints scored · latest step 11,500 · 720 results". */
function evalText(e: NonNullable<ActiveRunView["evals"]>): string {
  const step =
    e.latestStep === null
      ? ""
      : ` · latest step ${typeof e.latestStep === "number" ? formatCount(e.latestStep) : e.latestStep}`;
  return `${formatCount(e.checkpoints)} checkpoint${e.checkpoints === 1 ? "" : "s"} scored${step} · ${formatCount(e.results)} results`;
}

/**
 * One running or stale run on the overview: name, kind, host and workers, a progress bar with
 * done/total, percent, rate and ETA in one line. A stale run is amber with "no push for 4 min",
 * never blue. `state` is re-derived by the caller on the server's clock. On the `wall` the row is
 * dense (a TV shows several runs at once): the figures get a column wide enough for one line, the
 * name is clamped to two lines (`data-wall-clamp`), the status badge leads the line under it, and a
 * stale run's "no push for …" joins its figures.
 */
export function ActiveRunRow({
  run,
  state,
  serverNowMs,
  wall = false,
}: {
  run: ActiveRunView;
  state: RunState;
  serverNowMs: number;
  wall?: boolean;
}) {
  const alertTitle = useAlertTitle();
  const stale = state === "stale";
  const silentFor = formatAge(run.lastPushAt, serverNowMs);
  const hasProgress = run.progress.done !== null || run.progress.total !== null;
  const staleNote = `no push for ${silentFor}`;
  // The wall and a phone have no hover for a tooltip: there the figure lines wrap instead of ending in "…"
  // (on the wall in full: it pages by the rows that fit, and a two-line clamp still cut "· lr 3e-4").
  const fit = wall
    ? "min-w-0 break-words"
    : "min-w-0 truncate max-md:line-clamp-2 max-md:break-words max-md:whitespace-normal";
  const badge = (
    <StatusBadge
      state={state}
      className={cn(
        "shrink-0",
        wall ? "h-auto py-0.5 text-sm leading-tight [&_svg]:size-4" : "mt-px",
      )}
    />
  );
  return (
    <li
      data-testid="active-run"
      data-run-id={run.id}
      data-state={state}
      className={cn(
        "grid border-b border-l-[3px] border-border px-4 last:border-b-0",
        wall
          ? "grid-cols-1 items-center gap-x-5 gap-y-1 py-2 md:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]"
          : "grid-cols-1 gap-x-6 gap-y-2 py-3 md:grid-cols-[minmax(13rem,1fr)_minmax(0,1.6fr)]",
        stale ? "border-l-stale bg-stale-bg/45" : "border-l-transparent",
      )}
    >
      <div className="min-w-0">
        <div className="flex min-w-0 items-start gap-2">
          {!wall && badge}
          {/* The wall clamps long names to two lines: more runs per screen matter more there than the name's tail. */}
          <Link
            href={runPath(run.id)}
            className={cn(
              "line-clamp-2 rounded-sm font-semibold break-words hover:underline",
              wall ? "text-base leading-tight" : "text-sm",
            )}
            title={run.name}
            data-wall-clamp={wall ? "" : undefined}
          >
            {run.name}
          </Link>
        </div>
        <div
          className={cn(
            "mt-1 flex flex-wrap items-center gap-x-2 text-muted-fg tabular-nums",
            wall ? "gap-y-0.5 text-sm leading-tight" : "text-xs",
          )}
        >
          {wall && badge}
          <span>{run.kind}</span>
          <span aria-hidden>·</span>
          <span>{run.host}</span>
          {/* On the wall only silent workers are news; the count alone wrapped the line. */}
          {run.workers > 0 && !wall && (
            <>
              <span aria-hidden>·</span>
              <span>
                {run.workers} worker{run.workers === 1 ? "" : "s"}
                {run.staleWorkers > 0 && !stale && (
                  <span className="font-medium text-stale"> ({run.staleWorkers} silent)</span>
                )}
              </span>
            </>
          )}
          {wall && run.staleWorkers > 0 && !stale && (
            <>
              <span aria-hidden>·</span>
              <span className="font-medium text-stale">
                {run.staleWorkers} of {run.workers} workers silent
              </span>
            </>
          )}
          {/* Not on the wall: a running row there is fresh by definition (a silent one turns stale), and the line stays one line. */}
          {!stale && !wall && (
            <>
              <span aria-hidden>·</span>
              <span title={`Last push ${run.lastPushAt}`}>updated {silentFor} ago</span>
            </>
          )}
        </div>
        {run.activeAlerts.map((code) => (
          <div
            key={code}
            className={cn(
              "mt-1.5 flex items-center gap-1.5 font-medium text-failed",
              wall ? "text-sm" : "text-xs",
            )}
            role="alert"
          >
            <OctagonAlert aria-hidden className={wall ? "size-5" : "size-3.5"} />
            {alertTitle(code)}
          </div>
        ))}
      </div>
      <div className="min-w-0 self-center">
        {/* On its own line: beside the figures it squeezed them into an awkward wrap (wall, issue 12). */}
        {stale && !(wall && hasProgress) && (
          <div
            className={cn(
              "mb-1 font-semibold text-stale tabular-nums",
              wall ? "text-base leading-snug" : "text-xs",
            )}
            title={`Last push ${run.lastPushAt}`}
          >
            {staleNote}
          </div>
        )}
        <div
          className={cn(
            "flex items-baseline justify-between gap-3 text-muted-fg",
            wall ? "mb-1 text-base leading-snug" : "mb-1.5 text-[13px]",
          )}
        >
          {hasProgress ? (
            <ProgressFiguresText
              progress={run.progress}
              state={state}
              staleNote={wall ? staleNote : undefined}
              className={wall ? "gap-x-2.5" : undefined}
            />
          ) : run.latestMetrics.length > 0 ? (
            <span className={cn("tabular-nums", fit)} title={metricsText(run)}>
              {metricsText(run)}
            </span>
          ) : run.evals ? (
            <span className={cn("tabular-nums", fit)} data-testid="eval-progress">
              {evalText(run.evals)} · scored {formatAge(run.evals.lastScoredAt, serverNowMs)} ago
            </span>
          ) : run.pointCount > 0 ? (
            <span className="tabular-nums">
              {formatCount(run.pointCount)} benchmark point{run.pointCount === 1 ? "" : "s"}
            </span>
          ) : (
            <span>
              {run.kind === "eval"
                ? "Waiting for the first scored checkpoint"
                : "Waiting for the first progress report"}
            </span>
          )}
        </div>
        {hasProgress && (
          <ProgressBar
            progress={run.progress}
            state={state}
            label={`${run.name} progress`}
            className={wall ? "h-2.5" : undefined}
          />
        )}
        {hasProgress && run.latestMetrics.length > 0 && (
          <div
            className={cn(
              "mt-1 text-muted-fg tabular-nums",
              fit,
              wall ? "text-sm leading-snug" : "text-xs",
            )}
            title={metricsText(run)}
          >
            {metricsText(run)}
          </div>
        )}
      </div>
    </li>
  );
}
