"use client";

import { ClipboardList } from "lucide-react";
import Link from "next/link";

import { PlanStateBadge } from "@/components/plans/plan-state-badge";
import { RelativeTime } from "@/components/runs/relative-time";
import { formatDuration } from "@/lib/format";
import type { PlanVersion } from "@/lib/metrics/plan-versions";
import { planPath } from "@/lib/paths";

/**
 * A plan version in the session timeline: "Plan v2 proposed (revises v1)" with its title, or the
 * decision on it ("v1 Changes requested by Ada: “warm up first”"; an expiry reads "Expired").
 * Rendered as one `<li>` of the timeline list, with a square marker so it stands apart from the
 * round snapshot dots.
 */
export function PlanTimelineEntry({
  kind,
  ts,
  version,
  startedMs,
  last,
}: {
  kind: "proposed" | "decided";
  ts: string;
  version: PlanVersion;
  startedMs: number;
  last: boolean;
}) {
  const { plan } = version;
  const label =
    kind === "proposed"
      ? `Plan v${version.version} proposed`
      : `Plan v${version.version} ${plan.state.replace(/_/g, " ")}`;
  return (
    <li className="relative pb-4 pl-5 last:pb-0" aria-label={label}>
      <span
        aria-hidden
        className="absolute top-[6px] left-[-1px] size-2.5 rotate-45 rounded-[2px] border-2 border-primary bg-card"
      />
      {!last && <span aria-hidden className="absolute top-4 bottom-0 left-[3px] w-px bg-border" />}
      <div className="flex flex-wrap items-baseline gap-x-2 text-xs text-muted-fg tabular-nums">
        <RelativeTime iso={ts} className="text-[13px] font-medium text-foreground" />
        <span>+{formatDuration(Math.max(0, Date.parse(ts) - startedMs) / 1000)}</span>
        <span className="font-medium text-foreground">plan v{version.version}</span>
      </div>
      {kind === "proposed" ? (
        <div className="mt-1 flex min-w-0 items-start gap-2 text-[13px] leading-5">
          <ClipboardList aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-fg" />
          <span className="min-w-0">
            Proposed{" "}
            <Link href={planPath(plan.id)} className="font-medium hover:underline">
              {plan.title}
            </Link>{" "}
            <span className="text-xs text-muted-fg">
              {plan.itemCount} step{plan.itemCount === 1 ? "" : "s"}
              {version.revises !== null && ` · revises v${version.revises}`}
            </span>
            {plan.state === "proposed" && (
              <PlanStateBadge state="proposed" className="ml-1.5 align-middle" />
            )}
          </span>
        </div>
      ) : (
        <div className="mt-1 grid gap-1 text-[13px] leading-5">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <PlanStateBadge state={plan.state} />
            {plan.decidedBy && (
              <span className="text-xs text-muted-fg">
                by <span className="font-medium text-foreground">{plan.decidedBy}</span>
              </span>
            )}
          </div>
          {plan.decisionComment && (
            <blockquote className="border-l-2 border-border pl-2 text-muted-fg">
              “{plan.decisionComment}”
            </blockquote>
          )}
        </div>
      )}
    </li>
  );
}
