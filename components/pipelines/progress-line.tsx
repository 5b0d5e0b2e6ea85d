import {
  formatDoneTotal,
  formatEta,
  formatFraction,
  formatRate,
} from "@/components/pipelines/units";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";
import type { ProgressFigures } from "@/lib/view-models/pipeline";

const FILL: Record<RunState, string> = {
  running: "bg-running",
  stale: "bg-stale",
  succeeded: "bg-succeeded",
  failed: "bg-failed",
  cancelled: "bg-neutral",
  ended: "bg-neutral",
};

/**
 * The bar alone: filled to done/total in the status colour (amber when stale, so a stale run never
 * looks like a running one); hatched when the total is unknown. An ARIA progressbar with the
 * figures as its text.
 */
export function ProgressBar({
  progress,
  state,
  className,
  label,
}: {
  progress: ProgressFigures;
  state: RunState;
  className?: string;
  label: string;
}) {
  const known = progress.fraction !== null;
  const pct = known ? (progress.fraction ?? 0) * 100 : 0;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={known ? Math.round(pct * 10) / 10 : undefined}
      aria-valuetext={progressText(progress)}
      className={cn("relative h-2 w-full overflow-hidden rounded-full bg-muted", className)}
    >
      {known ? (
        <div
          className={cn(
            "h-full rounded-full transition-[width] duration-500 motion-reduce:transition-none",
            FILL[state],
          )}
          style={{ width: `${pct}%` }}
        />
      ) : (
        <div
          aria-hidden
          className="h-full w-full opacity-40"
          style={{
            backgroundImage:
              "repeating-linear-gradient(135deg, var(--muted-fg) 0 4px, transparent 4px 9px)",
          }}
          title="Total not reported: progress cannot be shown as a fraction"
        />
      )}
    </div>
  );
}

/** "350 / 1,000 samples · 35.0% · 1.70 samples/s · ETA 6m 22s" (parts that are unknown are left out, except the rate and ETA of running runs). */
export function progressText(p: ProgressFigures, opts: { rate?: boolean } = {}): string {
  const parts = [formatDoneTotal(p.done, p.total, p.unit)];
  if (p.fraction !== null) parts.push(formatFraction(p.fraction));
  if (opts.rate !== false) {
    parts.push(formatRate(p.ratePerS, p.unit));
    if (p.total !== null) parts.push(formatEta(p.etaS));
  }
  return parts.join(" · ");
}

/**
 * The figures of a progress line as separate spans (done/total, percent, rate, ETA) so they can be
 * styled and wrap cleanly; the rate and ETA are shown only while the run runs (a stale run shows
 * why instead, in amber).
 */
export function ProgressFiguresText({
  progress,
  state,
  className,
  staleNote,
}: {
  progress: ProgressFigures;
  state: RunState;
  className?: string;
  staleNote?: string;
}) {
  const live = state === "running";
  return (
    <div className={cn("flex flex-wrap items-baseline gap-x-3 gap-y-0.5 tabular-nums", className)}>
      <span className="font-medium text-foreground">
        {formatDoneTotal(progress.done, progress.total, progress.unit)}
      </span>
      {progress.fraction !== null && (
        <span className="text-foreground">{formatFraction(progress.fraction)}</span>
      )}
      {live && <span>{formatRate(progress.ratePerS, progress.unit)}</span>}
      {live && progress.total !== null && <span>{formatEta(progress.etaS)}</span>}
      {state === "stale" && staleNote && (
        <span className="font-medium text-stale">{staleNote}</span>
      )}
    </div>
  );
}
