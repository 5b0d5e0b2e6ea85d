"use client";

import { TriangleAlert } from "lucide-react";
import Link from "next/link";

import { ExpiryCountdown } from "@/components/plans/expiry-countdown";
import { InlineDecision } from "@/components/plans/inline-decision";
import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { Badge } from "@/components/ui/badge";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { MISSING } from "@/lib/format";
import { hostPath, planPath, runPath, sessionPath } from "@/lib/paths";
import type { PlanSummaryView } from "@/lib/view-models/plans";
import { sessionLabel } from "@/lib/view-models/sessions";

/**
 * A table of plans. `pending`: the ones awaiting a decision, with their expiry and — when
 * `canDecide` (the viewer has the approver role) — Approve / Request changes / Reject under each
 * title; otherwise decided ones with the decision, who took it and when.
 */
export function PlanTable({
  plans,
  serverNow,
  pending,
  canDecide = false,
}: {
  plans: PlanSummaryView[];
  serverNow: number;
  pending: boolean;
  canDecide?: boolean;
}) {
  return (
    <Table
      className={pending ? "min-w-[1100px] table-fixed" : "min-w-[1200px] table-fixed"}
      label={pending ? "Plans awaiting decision" : "Decided plans"}
    >
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
          const state =
            p.state === "proposed" && Date.parse(p.expiresAt) <= serverNow ? "expired" : p.state;
          return (
            <TableRow key={p.id}>
              {!pending && (
                <TableCell>
                  <PlanStateBadge state={state} closedReason={p.closedReason} />
                </TableCell>
              )}
              <TableCell className="overflow-hidden">
                <div className="flex min-w-0 items-center gap-2">
                  <Link
                    href={planPath(p.id)}
                    className="min-w-0 truncate rounded-sm font-medium hover:underline max-md:wrap-anywhere max-md:whitespace-normal"
                    title={p.title}
                  >
                    {p.title}
                  </Link>
                  {pending && p.basedOnStaleState && (
                    <Badge
                      tone="stale"
                      className="shrink-0"
                      title={`Proposed while the run was ${p.runStateAtProposal}; it is ${p.run?.state ?? "gone"} now`}
                    >
                      <TriangleAlert aria-hidden />
                      stale state
                    </Badge>
                  )}
                </div>
                {pending && canDecide && (
                  <div className="mt-2">
                    <InlineDecision plan={p} />
                  </div>
                )}
              </TableCell>
              <TableCell className="truncate">
                <Link href={hostPath(p.host)} className="rounded-sm hover:underline">
                  {p.host}
                </Link>
              </TableCell>
              <TableCell className="overflow-hidden">
                {p.run ? (
                  <div className="flex min-w-0 items-center gap-2">
                    <Link
                      href={runPath(p.run.id)}
                      className="min-w-0 truncate rounded-sm hover:underline"
                      title={p.run.name}
                    >
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
                  <span className="inline-flex max-w-full min-w-0 items-center gap-1.5">
                    <SessionSourceLabel source={p.session.source} iconOnly />
                    <Link
                      href={sessionPath(p.session.id)}
                      className="truncate rounded-sm text-muted-fg hover:underline"
                      title={`${sessionLabel(p.session)}\n${p.session.key}`}
                    >
                      {sessionLabel(p.session)}
                    </Link>
                  </span>
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
                    <span className="text-foreground">{p.decidedBy}</span> ·{" "}
                    <RelativeTime iso={p.decidedAt} />
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
