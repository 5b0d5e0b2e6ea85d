import { Ban, CircleCheck, CircleDashed, CircleDot, type LucideIcon } from "lucide-react";

import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";

type Known = "pending" | "in_progress" | "completed" | "cancelled" | "left_open";

const KNOWN: Record<
  Known,
  { label: string; icon: LucideIcon; color: string; tone: "neutral" | "running" | "succeeded" }
> = {
  pending: { label: "pending", icon: CircleDashed, color: "text-neutral", tone: "neutral" },
  in_progress: { label: "in progress", icon: CircleDot, color: "text-running", tone: "running" },
  completed: { label: "completed", icon: CircleCheck, color: "text-succeeded", tone: "succeeded" },
  cancelled: { label: "cancelled", icon: Ban, color: "text-neutral", tone: "neutral" },
  // Not an agent status: an in-progress item of a session that ended (see leftOpenCount).
  left_open: {
    label: "left open (the session ended)",
    icon: CircleDot,
    color: "text-neutral",
    tone: "neutral",
  },
};

function known(status: string): (typeof KNOWN)[Known] | null {
  return Object.hasOwn(KNOWN, status) ? KNOWN[status as Known] : null;
}

/** A todo status as words: "in progress"; any other status as written ("failed"). */
export function todoStatusLabel(status: string): string {
  return known(status)?.label ?? status.replace(/_/g, " ");
}

/**
 * The status icon of a todo item (pending, in progress, completed, cancelled) with its name for
 * screen readers; any other status ("failed") shows as a neutral label instead of an icon, so an
 * unknown word is never dressed up as a known state.
 */
export function TodoStatusIcon({ status, className }: { status: string; className?: string }) {
  const k = known(status);
  if (!k) {
    return (
      <Badge
        tone="outline"
        className={cn("h-4 px-1 text-[11px]", className)}
        title={`Status "${status}" as the agent wrote it`}
      >
        {status}
      </Badge>
    );
  }
  const Icon = k.icon;
  return (
    <span className={cn("inline-flex", className)} title={k.label}>
      <Icon aria-hidden className={cn("size-4 shrink-0", k.color)} />
      <span className="sr-only">{k.label}</span>
    </span>
  );
}

/** A todo status as a small badge with icon and label ("in progress"); other statuses neutral. */
export function TodoStatusBadge({ status, className }: { status: string; className?: string }) {
  const k = known(status);
  if (!k) {
    return (
      <Badge
        tone="outline"
        className={className}
        title={`Status "${status}" as the agent wrote it`}
      >
        {status}
      </Badge>
    );
  }
  const Icon = k.icon;
  return (
    <Badge tone={k.tone} className={className}>
      <Icon aria-hidden />
      {k.label}
    </Badge>
  );
}

/** "pending → in progress" with both statuses as badges. */
export function StatusChange({ from, to }: { from: string; to: string }) {
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap">
      <TodoStatusBadge status={from} />
      <span aria-label="to" className="text-muted-fg">
        →
      </span>
      <TodoStatusBadge status={to} />
    </span>
  );
}
