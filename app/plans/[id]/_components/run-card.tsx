import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { runPath } from "@/lib/paths";
import type { RunState } from "@/lib/view-models";
import type { PlanDetailView } from "@/lib/view-models/plans";

/** The plan's linked run now: its state (re-derived on the server's clock), host, last push and its state when proposed. */
export function RunCard({
  plan,
  runNow,
  stale,
}: {
  plan: PlanDetailView;
  runNow: RunState | null;
  stale: boolean;
}) {
  const run = plan.run;
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Run</CardTitle>
        {run && <CardDescription className="ml-auto">{run.kind}</CardDescription>}
      </CardHeader>
      <CardContent className="grid gap-2 text-[13px]">
        {run ? (
          <>
            <div className="flex min-w-0 items-center gap-2">
              <Link
                href={runPath(run.id)}
                className="min-w-0 truncate rounded-sm font-medium hover:underline"
                title={run.name}
              >
                {run.name}
              </Link>
              <StatusBadge state={runNow ?? run.state} className="ml-auto shrink-0" />
            </div>
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs text-muted-fg tabular-nums">
              <dt>Host</dt>
              <dd className="text-foreground">{run.host}</dd>
              <dt>Last push</dt>
              <dd className="text-foreground">
                <RelativeTime iso={run.lastPushAt} />
              </dd>
              <dt>When proposed</dt>
              <dd className={stale ? "font-medium text-stale" : "text-foreground"}>
                {plan.runStateAtProposal ?? "—"}
                {stale && ` → ${runNow} now`}
              </dd>
            </dl>
          </>
        ) : plan.runStateAtProposal !== null ? (
          <p className="text-stale">
            The run this plan named (then {plan.runStateAtProposal}) no longer exists.
          </p>
        ) : (
          <p className="text-muted-fg">
            No run linked. Agents link one with &quot;run&quot;: &quot;&lt;run key&gt;&quot; in
            plan.json.
          </p>
        )}
      </CardContent>
    </Card>
  );
}
