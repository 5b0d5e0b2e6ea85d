import { CircleCheck, PowerOff, TriangleAlert, type LucideIcon } from "lucide-react";

import { Badge } from "@/components/ui/badge";
import type { HostStateView } from "@/lib/view-models/hosts";

const STATES: Record<
  HostStateView,
  { label: string; tone: "succeeded" | "stale" | "neutral"; icon: LucideIcon; title: string }
> = {
  online: {
    label: "Online",
    tone: "succeeded",
    icon: CircleCheck,
    title: "Heartbeats arriving on time",
  },
  stale: { label: "Stale", tone: "stale", icon: TriangleAlert, title: "Missed 3 heartbeats" },
  offline: {
    label: "Offline",
    tone: "neutral",
    icon: PowerOff,
    title: "No heartbeat for 5 minutes (or never)",
  },
};

/** A host's liveness in the status palette, with icon and label. */
export function HostStateBadge({ state, className }: { state: HostStateView; className?: string }) {
  const s = STATES[state];
  const Icon = s.icon;
  return (
    <Badge tone={s.tone} className={className} title={s.title}>
      <Icon aria-hidden />
      {s.label}
    </Badge>
  );
}
