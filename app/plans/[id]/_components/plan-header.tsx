import Link from "next/link";

import { ExpiryCountdown } from "@/components/plans/expiry-countdown";
import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { MetaItem } from "@/components/ui/meta-item";
import { hostPath } from "@/lib/paths";
import type { PlanDetailView, PlanState } from "@/lib/view-models/plans";

/**
 * The plan page's header: title, state (`state` as shown: "expired" once a proposal's time ran out
 * on the server's clock `serverNow`, ms), the expiry countdown while `pending`, and who proposed it when.
 */
export function PlanHeader({
  plan,
  state,
  pending,
  serverNow,
}: {
  plan: PlanDetailView;
  state: PlanState;
  pending: boolean;
  serverNow: number;
}) {
  return (
    <div className="grid gap-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1
          className="min-w-0 truncate text-lg font-semibold tracking-tight max-md:wrap-anywhere max-md:whitespace-normal"
          title={plan.title}
        >
          {plan.title}
        </h1>
        <PlanStateBadge state={state} closedReason={plan.closedReason} />
        {pending && (
          <span className="ml-auto inline-flex h-6 items-center gap-1.5 rounded-full border border-border bg-card px-2.5 text-xs text-muted-fg">
            Expires{" "}
            <ExpiryCountdown
              expiresAt={plan.expiresAt}
              serverNowMs={serverNow}
              pending
              className="text-foreground"
            />
          </span>
        )}
      </div>
      <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
        <MetaItem label="Proposed by">
          <Link href={hostPath(plan.host)} className="rounded-sm text-foreground hover:underline">
            {plan.host}
          </Link>
        </MetaItem>
        <MetaItem label="Proposed">
          <RelativeTime iso={plan.proposedAt} className="text-foreground" />
        </MetaItem>
        <MetaItem label="Items">
          <span className="text-foreground">{plan.items.length}</span>
        </MetaItem>
        <MetaItem label="Key">
          <span className="font-mono text-xs text-foreground">{plan.key}</span>
        </MetaItem>
      </dl>
    </div>
  );
}
