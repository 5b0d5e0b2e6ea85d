import { TriangleAlert } from "lucide-react";

import { Card } from "@/components/ui/card";
import { formatAge } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";
import { RATE_WINDOW_S, type RunProgressView } from "@/lib/view-models/pipeline";

import { ProgressBar } from "./progress-line";
import { formatDoneTotal, formatEta, formatFraction, formatRate } from "./units";

function Figure({ label, value, className }: { label: string; value: string; className?: string }) {
  return (
    <div className="min-w-0">
      <div className="text-xs text-muted-fg">{label}</div>
      <div
        className={cn(
          "truncate text-lg font-semibold tracking-tight tabular-nums max-sm:break-words max-sm:whitespace-normal",
          className,
        )}
        title={value}
      >
        {value}
      </div>
    </div>
  );
}

/**
 * The run's progress at the top of its page: percent, done/total, windowed rate and ETA, the bar in
 * the status colour, and why a stale run is stale ("no push for 4 min").
 */
export function ProgressCard({
  view,
  state,
  serverNowMs,
}: {
  view: RunProgressView;
  state: RunState;
  serverNowMs: number;
}) {
  const p = view.progress;
  const running = state === "running";
  const stale = state === "stale";
  return (
    <Card
      className={cn("grid gap-3 px-4 py-3", stale && "border-stale/60 bg-stale-bg/30")}
      data-testid="run-progress"
    >
      {/* "Done" ("104,033 / 914,000 samples") gets the widest column: it is the longest figure. */}
      <div className="grid grid-cols-2 gap-x-6 gap-y-2 sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)]">
        <Figure
          label="Progress"
          value={p.fraction !== null ? formatFraction(p.fraction) : "—"}
          className={cn(stale ? "text-stale" : running ? "text-link" : undefined, "text-2xl")}
        />
        <Figure label="Done" value={formatDoneTotal(p.done, p.total, p.unit)} />
        <Figure
          label={`Rate (last ${RATE_WINDOW_S / 60} min)`}
          value={running || stale ? formatRate(p.ratePerS, p.unit) : "—"}
          className={stale ? "text-stale" : undefined}
        />
        <Figure
          label="Time left"
          value={
            running
              ? formatEta(p.etaS).replace(/^ETA /, "")
              : stale
                ? "stalled"
                : state === "succeeded"
                  ? "done"
                  : "—"
          }
          className={stale ? "text-stale" : undefined}
        />
      </div>
      <ProgressBar progress={p} state={state} label="Run progress" className="h-3" />
      {stale && (
        <p className="flex items-center gap-2 text-sm font-medium text-stale" role="status">
          <TriangleAlert aria-hidden className="size-4" />
          Stale: no push for {formatAge(view.lastPushAt, serverNowMs)} (threshold {view.stallAfterS}{" "}
          s). The worker may be hung, or its host may be down.
        </p>
      )}
    </Card>
  );
}
