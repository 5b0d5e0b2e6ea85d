"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import { hostPath } from "@/components/hosts/queries";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useServerNow } from "@/components/pipelines/use-server-now";
import { ExpiryCountdown } from "@/components/plans/expiry-countdown";
import { PendingPlansBadge } from "@/components/plans/pending-plans-badge";
import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { PlansEmptyState } from "@/components/plans/plans-empty-state";
import { fetchPlans, planPath, plansQueryKey } from "@/components/plans/queries";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { sessionPath } from "@/components/sessions/queries";
import { Badge } from "@/components/ui/badge";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { MISSING } from "@/lib/format";
import { runPath } from "@/lib/paths";
import type { PlanListView, PlanSummaryView } from "@/lib/view-models/plans";

/** The live plan list: plans awaiting a decision first, then the decided ones. */
export function PlansView({ initial, renderedAt, origin }: { initial: PlanListView; renderedAt: number; origin: string }) {
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
  const pending = data.plans.filter((p) => p.state === "proposed" && Date.parse(p.expiresAt) > serverNow);
  const decided = data.plans.filter((p) => !pending.includes(p));

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Plans</h1>
        <PendingPlansBadge variant="label" initialCount={initial.pendingCount} />
      </div>
      {error && (
        <p role="alert" className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed">
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
              <CardDescription>newest first · the agent waits until someone decides</CardDescription>
            </CardHeader>
            {pending.length === 0 ? (
              <p className="px-4 py-4 text-sm text-muted-fg">Nothing awaits a decision.</p>
            ) : (
              <PlanTable plans={pending} serverNow={serverNow} pending />
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

function PlanTable({ plans, serverNow, pending }: { plans: PlanSummaryView[]; serverNow: number; pending: boolean }) {
  return (
    <Table className="table-fixed">
      <colgroup>
        {!pending && <col className="w-44" />}
        <col />
        <col className="w-28" />
        <col className={pending ? "w-[19%]" : "w-[16%]"} />
        <col className={pending ? "w-[15%]" : "w-[13%]"} />
        <col className="w-16" />
        <col className="w-28" />
        <col className={pending ? "w-32" : "w-52"} />
      </colgroup>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          {!pending && <TableHead>Decision</TableHead>}
          <TableHead>Title</TableHead>
          <TableHead>Host</TableHead>
          <TableHead>Run</TableHead>
          <TableHead>Session</TableHead>
          <TableHead className="text-right">Items</TableHead>
          <TableHead>Proposed</TableHead>
          <TableHead>{pending ? "Expires" : "Decided"}</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {plans.map((p) => {
          const state = p.state === "proposed" && Date.parse(p.expiresAt) <= serverNow ? "expired" : p.state;
          return (
            <TableRow key={p.id}>
              {!pending && (
                <TableCell>
                  <PlanStateBadge state={state} />
                </TableCell>
              )}
              <TableCell className="overflow-hidden">
                <div className="flex min-w-0 items-center gap-2">
                  <Link href={planPath(p.id)} className="truncate rounded-sm font-medium hover:underline" title={p.title}>
                    {p.title}
                  </Link>
                  {pending && p.basedOnStaleState && (
                    <Badge tone="stale" className="shrink-0" title={`Proposed while the run was ${p.runStateAtProposal}; it is ${p.run?.state ?? "gone"} now`}>
                      <TriangleAlert aria-hidden />
                      stale state
                    </Badge>
                  )}
                </div>
              </TableCell>
              <TableCell className="truncate">
                <Link href={hostPath(p.host)} className="rounded-sm hover:underline">
                  {p.host}
                </Link>
              </TableCell>
              <TableCell className="overflow-hidden">
                {p.run ? (
                  <div className="flex min-w-0 items-center gap-2">
                    <Link href={runPath(p.run.id)} className="min-w-0 truncate rounded-sm hover:underline" title={p.run.name}>
                      {p.run.name}
                    </Link>
                    <StatusBadge state={p.run.state} className="shrink-0" />
                  </div>
                ) : (
                  <span className="text-muted-fg">{MISSING}</span>
                )}
              </TableCell>
              <TableCell className="truncate">
                {p.session ? (
                  <Link href={sessionPath(p.session.id)} className="rounded-sm text-muted-fg hover:underline" title={p.session.title ?? p.session.key}>
                    {p.session.title ?? p.session.key}
                  </Link>
                ) : (
                  <span className="text-muted-fg">{MISSING}</span>
                )}
              </TableCell>
              <TableCell className="text-right">{p.itemCount}</TableCell>
              <TableCell className="text-muted-fg">
                <RelativeTime iso={p.proposedAt} />
              </TableCell>
              <TableCell className="truncate text-muted-fg">
                {pending ? (
                  <ExpiryCountdown expiresAt={p.expiresAt} serverNowMs={serverNow} pending />
                ) : p.decidedAt ? (
                  <span title={`by ${p.decidedBy ?? "?"}`}>
                    <span className="text-foreground">{p.decidedBy}</span> · <RelativeTime iso={p.decidedAt} />
                  </span>
                ) : (
                  MISSING
                )}
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
