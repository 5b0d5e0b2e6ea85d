import { PlanItemsDiffView } from "@/components/plans/plan-items-diff";
import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { PlanDetailView } from "@/lib/view-models/plans";

/** Every decision taken on the plan: who, when, the comment and what changed against the proposal. */
export function DecisionHistory({ plan }: { plan: PlanDetailView }) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Decision{plan.decisions.length === 1 ? "" : "s"}</CardTitle>
        <CardDescription>who decided, when, and what changed against the proposal</CardDescription>
      </CardHeader>
      <ol className="divide-y divide-border">
        {plan.decisions.map((d) => (
          <li key={d.id} className="grid gap-2 px-4 py-3">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
              <PlanStateBadge state={d.decision} />
              <span>
                by <span className="font-medium">{d.decidedBy}</span>
              </span>
              <RelativeTime iso={d.decidedAt} className="text-muted-fg" />
            </div>
            {d.comment && (
              <p className="rounded-md border border-border bg-muted/50 px-3 py-2 text-[13px] leading-5 break-words whitespace-pre-wrap">
                {d.comment}
              </p>
            )}
            <PlanItemsDiffView diff={d.changes} />
          </li>
        ))}
      </ol>
    </Card>
  );
}
