import { cn } from "@/lib/utils";
import type { TodoProgressView } from "@/lib/view-models/sessions";

/**
 * "3/6" with a small bar: completed items over all items. Cancelled items do not count against
 * progress (the bar is completed / (total − cancelled)); the title spells out every status.
 */
export function TodoProgress({
  progress,
  className,
  barClassName,
}: {
  progress: TodoProgressView | null;
  className?: string;
  barClassName?: string;
}) {
  if (!progress || progress.total === 0)
    return (
      <span className={cn("text-muted-fg", className)}>
        {progress ? "empty list" : "no list yet"}
      </span>
    );
  const pct = (progress.fractionDone ?? 0) * 100;
  const detail = Object.entries(progress.byStatus)
    .map(([status, n]) => `${n} ${status.replace(/_/g, " ")}`)
    .join(", ");
  const done = progress.fractionDone !== null && progress.fractionDone >= 1;
  return (
    <span className={cn("flex items-center gap-2 tabular-nums", className)} title={detail}>
      <span
        role="progressbar"
        aria-label="Todo items completed"
        aria-valuemin={0}
        aria-valuemax={progress.total}
        aria-valuenow={progress.completed}
        aria-valuetext={`${progress.completed} of ${progress.total} completed (${detail})`}
        className={cn(
          "relative h-1.5 w-16 shrink-0 overflow-hidden rounded-full bg-muted",
          barClassName,
        )}
      >
        <span
          className={cn(
            "absolute inset-y-0 left-0 rounded-full",
            done ? "bg-succeeded" : "bg-running",
          )}
          style={{ width: `${pct}%` }}
        />
      </span>
      <span>
        {progress.completed}/{progress.total}
      </span>
    </span>
  );
}
