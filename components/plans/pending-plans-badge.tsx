"use client";

import { useQuery } from "@tanstack/react-query";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useHydrated } from "@/components/live/use-now";
import { fetchPendingPlanCount } from "@/lib/api/fetchers/plans";
import { pendingPlansQueryKey } from "@/lib/api/query-keys";
import { cn } from "@/lib/utils";

/**
 * The live number of plans waiting for a decision (topic `plans`). `variant="nav"`: a small count
 * pill for a navigation link, hidden at 0; `variant="label"`: "3 awaiting decision", always shown
 * (page headers). `initialCount` (from the server render) avoids a flash before the first fetch.
 */
export function PendingPlansBadge({
  variant = "nav",
  initialCount,
  className,
}: {
  variant?: "nav" | "label";
  initialCount?: number;
  className?: string;
}) {
  const live = useLiveTopics(["plans"]);
  const { data } = useQuery({
    queryKey: pendingPlansQueryKey,
    queryFn: ({ signal }) => fetchPendingPlanCount(signal),
    initialData: initialCount,
    refetchInterval: refetchIntervalFor(live),
  });
  // The nav's badge (no initial count) and /plans' label share one cache entry, and whichever
  // hydrates first seeds it: until hydration ends each shows what the server rendered (its own
  // initial count), or React finds the HTML changed (error #418 on /plans, seen in the review).
  const hydrated = useHydrated();
  const count = hydrated ? (data ?? initialCount) : initialCount;
  const label =
    count === undefined ? "" : `${count} plan${count === 1 ? "" : "s"} awaiting decision`;
  if (variant === "nav") {
    if (!count) return null;
    return (
      <span
        data-testid="pending-plans-count"
        title={label}
        className={cn(
          "inline-flex h-4 min-w-4 items-center justify-center rounded-full bg-primary px-1 text-[11px] leading-none font-semibold text-primary-fg tabular-nums",
          className,
        )}
      >
        {count}
        <span className="sr-only"> awaiting decision</span>
      </span>
    );
  }
  return (
    <span
      data-testid="pending-plans-count"
      role="status"
      aria-live="polite"
      className={cn(
        "inline-flex h-6 items-center gap-1.5 rounded-full border px-2.5 text-xs tabular-nums",
        count
          ? "border-primary/40 bg-running-bg text-running"
          : "border-border bg-card text-muted-fg",
        className,
      )}
    >
      <span className="font-semibold">{count ?? "…"}</span> awaiting decision
    </span>
  );
}
