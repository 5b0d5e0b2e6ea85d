import { Ban, CircleCheck, CircleDashed, CircleStop, CircleX, LoaderCircle, TriangleAlert, type LucideIcon } from "lucide-react";
import type { RunState } from "@/lib/view-models";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";

type Tone = "running" | "succeeded" | "failed" | "stale" | "neutral";

const STATES: Record<RunState | "pending", { label: string; tone: Tone; icon: LucideIcon; spin?: boolean }> = {
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

/** A run's state in the one status palette, always with icon and label (stale never looks like running; ended is neutral grey, never failed or running). */
export function StatusBadge({ state, className }: { state: RunState | "pending"; className?: string }) {
  const s = STATES[state];
  const Icon = s.icon;
  return (
    <Badge tone={s.tone} className={className} title={TITLES[state]}>
      <Icon aria-hidden className={cn(s.spin && "animate-spin [animation-duration:2s] motion-reduce:animate-none")} />
      {s.label}
    </Badge>
  );
}
