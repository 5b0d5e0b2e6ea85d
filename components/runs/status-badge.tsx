import {
  Ban,
  CircleCheck,
  CircleDashed,
  CircleStop,
  CircleX,
  LoaderCircle,
  TriangleAlert,
  type LucideIcon,
} from "lucide-react";

import { Badge } from "@/components/ui/badge";
import type { CountMismatch } from "@/lib/metrics/reconcile";
import { cn } from "@/lib/utils";
import type { RunState } from "@/lib/view-models";

type Tone = "running" | "succeeded" | "failed" | "stale" | "neutral";

const STATES: Record<
  RunState | "pending",
  { label: string; tone: Tone; icon: LucideIcon; spin?: boolean }
> = {
  running: { label: "Running", tone: "running", icon: LoaderCircle, spin: true },
  succeeded: { label: "Succeeded", tone: "succeeded", icon: CircleCheck },
  failed: { label: "Failed", tone: "failed", icon: CircleX },
  stale: { label: "Stale", tone: "stale", icon: TriangleAlert },
  cancelled: { label: "Cancelled", tone: "neutral", icon: Ban },
  ended: { label: "Ended", tone: "neutral", icon: CircleStop },
  pending: { label: "Pending", tone: "neutral", icon: CircleDashed },
};

const TITLES: Partial<Record<RunState | "pending", string>> = {
  stale: "No push from the worker within its stall threshold",
  ended: "Stopped at its last logged step; nothing says whether it succeeded",
};

/**
 * A run's state in the one status palette, always with icon and label (stale never looks like
 * running; ended is neutral grey, never failed or running). A succeeded run whose end counts disagree (`mismatches`, lib/metrics/reconcile.ts) is
 * amber "Counts differ" with the reason on hover, never a green Succeeded.
 */
export function StatusBadge({
  state,
  mismatches,
  className,
}: {
  state: RunState | "pending";
  mismatches?: readonly CountMismatch[];
  className?: string;
}) {
  if (state === "succeeded" && mismatches && mismatches.length > 0) {
    return (
      <Badge
        tone="stale"
        className={className}
        data-state="counts-differ"
        title={`Succeeded, but ${mismatches.map((m) => m.message).join("; ")}`}
      >
        <TriangleAlert aria-hidden />
        Counts differ
      </Badge>
    );
  }
  const s = STATES[state];
  const Icon = s.icon;
  return (
    <Badge tone={s.tone} className={className} data-state={state} title={TITLES[state]}>
      <Icon
        aria-hidden
        className={cn(s.spin && "animate-spin [animation-duration:2s] motion-reduce:animate-none")}
      />
      {s.label}
    </Badge>
  );
}
