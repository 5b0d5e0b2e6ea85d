"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { PlanVersionDiff } from "@/components/plans/plan-version-diff";
import { fetchPlan } from "@/lib/api/fetchers/plans";
import { planQueryKey } from "@/lib/api/query-keys";

/**
 * A revised plan's changes since the version it supersedes, folded under a disclosure in its
 * inbox item; the plan is fetched (`GET /api/plans/by-id/:id`) only once the disclosure opens.
 */
export function InboxPlanDiff({ planId }: { planId: number }) {
  const [open, setOpen] = useState(false);
  const { data, error } = useQuery({
    queryKey: planQueryKey(planId),
    queryFn: ({ signal }) => fetchPlan(planId, signal),
    enabled: open,
  });
  return (
    <details
      className="mt-2 rounded border border-border px-3"
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary className="flex min-h-11 cursor-pointer items-center text-sm font-medium">
        Changes since the previous version
      </summary>
      <div className="pb-3">
        {error ? (
          <p role="alert" className="text-sm text-failed">
            Could not load the plan ({error.message}).
          </p>
        ) : !data ? (
          <p className="text-sm text-muted-fg">Loading…</p>
        ) : data.versionDiff ? (
          <PlanVersionDiff diff={data.versionDiff} />
        ) : (
          <p className="text-sm text-muted-fg">The previous version is no longer stored.</p>
        )}
      </div>
    </details>
  );
}
