import type { PrismaClient } from "@/generated/prisma/client";
import { isoTime } from "@/lib/iso-time";
import { diffPlanBodies, diffPlanVersionItems } from "@/lib/plans/version-diff";
import type { PlanItemView, PlanVersionDiffView } from "@/lib/view-models/plans";

import { planState, storedPlanItems } from "./plan-rows";

/**
 * A plan (its `body` and `items`) against the version whose key it `supersedes`: the previous
 * version's id, key, title and state, the body's line diff and the items' diff. Null when the plan
 * revises nothing or the previous version is not stored (deleted, or never sent).
 */
export async function planVersionDiff(
  db: PrismaClient,
  current: { supersedes: string | null; body: string | null; items: readonly PlanItemView[] },
  now: Date,
): Promise<PlanVersionDiffView | null> {
  if (current.supersedes === null) return null;
  const prev = await db.plan.findUnique({
    where: { key: current.supersedes },
    select: {
      id: true,
      key: true,
      title: true,
      status: true,
      expiresAt: true,
      proposedAt: true,
      body: true,
      items: true,
    },
  });
  if (!prev) return null;
  const norm = (t: string | null) => (t ?? "").replace(/\r\n/g, "\n").replace(/\n+$/, "");
  return {
    previous: {
      id: prev.id,
      key: prev.key,
      title: prev.title,
      state: planState(prev.status, prev.expiresAt, now),
      proposedAt: isoTime(prev.proposedAt),
    },
    body: diffPlanBodies(prev.body, current.body),
    bodyChanged: norm(prev.body) !== norm(current.body),
    items: diffPlanVersionItems(storedPlanItems(prev.items), current.items),
  };
}
