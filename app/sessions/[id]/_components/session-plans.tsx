"use client";

import Link from "next/link";

import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { planPath, runPath } from "@/lib/paths";
import type { PlanListView } from "@/lib/view-models/plans";
import type { SessionDetailView } from "@/lib/view-models/sessions";

/** Runs the session started, then the plans it proposed with their state and the runs they are about. */
export function SessionPlans({
  plans,
  runs,
}: {
  plans: PlanListView;
  runs: SessionDetailView["runs"];
}) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Plans and runs</CardTitle>
        <CardDescription className="tabular-nums">
          {plans.plans.length === 0
            ? "none linked"
            : `${plans.plans.length} plan${plans.plans.length === 1 ? "" : "s"}${plans.pendingCount > 0 ? `, ${plans.pendingCount} awaiting decision` : ""}`}
        </CardDescription>
      </CardHeader>
      {runs.length > 0 && (
        <ul
          aria-label="Runs started from this session"
          className="divide-y divide-border border-b border-border"
        >
          {runs.map((r) => (
            <li key={r.id} className="flex min-w-0 items-center gap-2 px-4 py-2 text-[13px]">
              <StatusBadge state={r.state} />
              <Link
                href={runPath(r.id)}
                className="min-w-0 truncate rounded-sm font-medium hover:underline"
                title={r.name}
              >
                {r.name}
              </Link>
              <span className="text-xs text-muted-fg">{r.kind}</span>
              <RelativeTime iso={r.startedAt} className="ml-auto shrink-0 text-xs text-muted-fg" />
            </li>
          ))}
        </ul>
      )}
      {plans.plans.length === 0 ? (
        <p className="px-4 py-3 text-xs text-muted-fg">
          Plans proposed with{" "}
          <code className="font-mono">
            &quot;session&quot;: &quot;&lt;this session&apos;s key&gt;&quot;
          </code>{" "}
          in plan.json show up here, with the runs they name.
        </p>
      ) : (
        <ul className="divide-y divide-border">
          {plans.plans.map((p) => (
            <li key={p.id} className="grid gap-1 px-4 py-2">
              <div className="flex min-w-0 items-center gap-2">
                <PlanStateBadge state={p.state} closedReason={p.closedReason} />
                <Link
                  href={planPath(p.id)}
                  className="min-w-0 truncate rounded-sm text-[13px] font-medium hover:underline max-md:wrap-anywhere max-md:whitespace-normal"
                  title={p.title}
                >
                  {p.title}
                </Link>
                <RelativeTime
                  iso={p.proposedAt}
                  className="ml-auto shrink-0 text-xs text-muted-fg"
                />
              </div>
              {p.run && (
                <div className="flex min-w-0 items-center gap-2 text-xs text-muted-fg">
                  <span>run</span>
                  <Link
                    href={runPath(p.run.id)}
                    className="min-w-0 truncate rounded-sm text-foreground hover:underline max-md:break-words max-md:whitespace-normal"
                    title={p.run.name}
                  >
                    {p.run.name}
                  </Link>
                  <StatusBadge state={p.run.state} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
