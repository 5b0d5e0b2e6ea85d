import {
  CircleCheck,
  CircleX,
  Hourglass,
  MessageSquareWarning,
  TimerOff,
  type LucideIcon,
} from "lucide-react";

import { Badge } from "@/components/ui/badge";
import type { PlanClosedReasonView, PlanState } from "@/lib/view-models/plans";

const STATES: Record<
  PlanState,
  {
    label: string;
    tone: "neutral" | "succeeded" | "failed" | "stale";
    icon: LucideIcon;
    title: string;
  }
> = {
  proposed: {
    label: "Awaiting decision",
    tone: "neutral",
    icon: Hourglass,
    title: "Proposed; the agent waits for a person's decision",
  },
  approved: {
    label: "Approved",
    tone: "succeeded",
    icon: CircleCheck,
    title: "Approved (possibly with edits); the agent proceeds",
  },
  changes_requested: {
    label: "Changes requested",
    tone: "neutral",
    icon: MessageSquareWarning,
    title: "Sent back to the agent with a comment",
  },
  rejected: {
    label: "Rejected",
    tone: "failed",
    icon: CircleX,
    title: "Rejected; the agent does not proceed",
  },
  expired: {
    label: "Expired",
    tone: "neutral",
    icon: TimerOff,
    title: "Nobody decided before it expired",
  },
};

const CLOSED: Record<PlanClosedReasonView, { label: string; title: string }> = {
  answered_in_terminal: {
    label: "Answered in the terminal",
    title:
      "The person answered the plan in the agent's terminal; the agent no longer waits for a decision here",
  },
  agent_ended: {
    label: "Agent ended",
    title: "The agent ended while the plan waited; nobody waits for a decision",
  },
};

/** Display name of a plan state ("Changes requested"; an expired plan closed early says why: "Agent ended"). */
export function planStateLabel(
  state: PlanState,
  closedReason?: PlanClosedReasonView | null,
): string {
  return state === "expired" && closedReason ? CLOSED[closedReason].label : STATES[state].label;
}

/** A plan's state with icon and label (never colour alone); an expired plan closed early names the reason. */
export function PlanStateBadge({
  state,
  closedReason,
  className,
}: {
  state: PlanState;
  closedReason?: PlanClosedReasonView | null;
  className?: string;
}) {
  const s =
    state === "expired" && closedReason
      ? { ...STATES.expired, ...CLOSED[closedReason] }
      : STATES[state];
  const Icon = s.icon;
  return (
    <Badge tone={s.tone} className={className} title={s.title}>
      <Icon aria-hidden />
      {s.label}
    </Badge>
  );
}
