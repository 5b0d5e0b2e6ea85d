import { PLAN_PRIORITIES } from "@/lib/protocol";
import type { PlanItemView, PlanState } from "@/lib/view-models/plans";

/** Plan row helpers shared by the plan read models (no database access). */

/** The state shown: a proposal past its expiry is expired even before the sweeper marks it. */
export function planState(
  status: "proposed" | "approved" | "changes_requested" | "rejected" | "expired",
  expiresAt: Date,
  now: Date,
): PlanState {
  return status === "proposed" && expiresAt <= now ? "expired" : status;
}

function priorityOf(v: unknown): PlanItemView["priority"] {
  return typeof v === "string" && (PLAN_PRIORITIES as readonly string[]).includes(v)
    ? (v as PlanItemView["priority"])
    : null;
}

/** Items of a stored plan or decision (`[{content, priority?}]`), read leniently. */
export function storedPlanItems(raw: unknown): PlanItemView[] {
  if (!Array.isArray(raw)) return [];
  return (raw as unknown[]).flatMap((e) => {
    if (!e || typeof e !== "object") return [];
    const r = e as Record<string, unknown>;
    return typeof r.content === "string"
      ? [{ content: r.content, priority: priorityOf(r.priority) }]
      : [];
  });
}
