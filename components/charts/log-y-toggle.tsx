"use client";

import { cn } from "@/lib/utils";

/** The "Log y" toggle of a chart (a pressed button puts the chart's y axis on a log₁₀ scale). */
export function LogYToggle({
  on,
  onChange,
  testId,
  className,
}: {
  on: boolean;
  onChange: (next: boolean) => void;
  testId?: string;
  className?: string;
}) {
  return (
    <button
      type="button"
      aria-pressed={on}
      onClick={() => onChange(!on)}
      className={cn(
        "shrink-0 rounded-md border border-border px-2 py-0.5 text-xs",
        on ? "bg-muted font-medium text-foreground" : "text-muted-fg hover:bg-muted",
        className,
      )}
      data-testid={testId}
    >
      Log y
    </button>
  );
}
