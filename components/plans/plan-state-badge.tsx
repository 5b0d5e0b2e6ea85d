import { CircleCheck, CircleX, Hourglass, MessageSquareWarning, TimerOff, type LucideIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import type { PlanState } from "@/lib/view-models/plans";

const STATES: Record<PlanState, { label: string; tone: "neutral" | "succeeded" | "failed" | "stale"; icon: LucideIcon; title: string }> = {
  proposed: { label: "Awaiting decision", tone: "neutral", icon: Hourglass, title: "Proposed; the agent waits for a person's decision" },
  approved: { label: "Approved", tone: "succeeded", icon: CircleCheck, title: "Approved (possibly with edits); the agent proceeds" },
  changes_requested: { label: "Changes requested", tone: "neutral", icon: MessageSquareWarning, title: "Sent back to the agent with a comment" },
  rejected: { label: "Rejected", tone: "failed", icon: CircleX, title: "Rejected; the agent does not proceed" },
  expired: { label: "Expired", tone: "neutral", icon: TimerOff, title: "Nobody decided before it expired" },
};

/** Display name of a plan state ("Changes requested"). */
export function planStateLabel(state: PlanState): string {
  return STATES[state].label;
}

/** A plan's state with icon and label (never colour alone). */
export function PlanStateBadge({ state, className }: { state: PlanState; className?: string }) {
  const s = STATES[state];
  const Icon = s.icon;
  return (
    <Badge tone={s.tone} className={className} title={s.title}>
      <Icon aria-hidden />
      {s.label}
    </Badge>
  );
}
