"use client";

import { useQuery } from "@tanstack/react-query";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useServerNow } from "@/components/pipelines/use-server-now";
import { PendingPlansBadge } from "@/components/plans/pending-plans-badge";
import { PlansEmptyState } from "@/components/plans/plans-empty-state";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchPlans } from "@/lib/api/fetchers/plans";
import { plansQueryKey } from "@/lib/api/query-keys";
import type { PlanListView } from "@/lib/view-models/plans";

import { PlanTable } from "./plan-table";

/** The live plan list: plans awaiting a decision first (decidable inline by approvers), then the decided ones. */
export function PlansView({
  initial,
  renderedAt,
  origin,
  canDecide,
}: {
  initial: PlanListView;
  renderedAt: number;
  origin: string;
  canDecide: boolean;
}) {
  const live = useLiveTopics(["plans"]);
  const { data, error, dataUpdatedAt } = useQuery({
    queryKey: plansQueryKey(),
    queryFn: ({ signal }) => fetchPlans({ signal }),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const serverNow = useServerNow(data.asOf, dataUpdatedAt);
  // Re-derived on the server's clock: a proposal whose expiry passes leaves the pending group at once.
  const pending = data.plans.filter(
    (p) => p.state === "proposed" && Date.parse(p.expiresAt) > serverNow,
  );
  const decided = data.plans.filter((p) => !pending.includes(p));

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Plans</h1>
        <PendingPlansBadge variant="label" initialCount={initial.pendingCount} />
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the list ({error.message}); showing the last data received.
        </p>
      )}
      {data.plans.length === 0 ? (
        <PlansEmptyState origin={origin} />
      ) : (
        <>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Awaiting decision</CardTitle>
              <CardDescription>
                newest first · the agent waits until someone decides
              </CardDescription>
            </CardHeader>
            {pending.length === 0 ? (
              <p className="px-4 py-4 text-sm text-muted-fg">Nothing awaits a decision.</p>
            ) : (
              <PlanTable plans={pending} serverNow={serverNow} pending canDecide={canDecide} />
            )}
          </Card>
          {decided.length > 0 && (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Decided</CardTitle>
                <CardDescription>newest proposal first</CardDescription>
              </CardHeader>
              <PlanTable plans={decided} serverNow={serverNow} pending={false} />
            </Card>
          )}
        </>
      )}
    </div>
  );
}
