import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";

import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getPlan } from "@/lib/server/repositories/plans";
import type { PlanDetailView } from "@/lib/view-models/plans";

import { PlanDetail } from "./_components/plan-detail";

/** Loads a plan once per request (shared by metadata and page); null when the id is invalid or unknown. */
const loadPlan = cache(async (id: string): Promise<PlanDetailView | null> => {
  const planId = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(planId) || planId <= 0) return null;
  try {
    return await getPlan(prisma(), planId);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
});

/** Page title: the plan's title. */
export async function generateMetadata({
  params,
}: {
  params: Promise<{ id: string }>;
}): Promise<Metadata> {
  await requirePageViewer();
  const plan = await loadPlan((await params).id);
  return { title: plan ? plan.title : "Plan not found" };
}

/**
 * /plans/:id: a plan's items, rationale, linked run and session as they are now (flagged when the
 * plan was based on a state that has changed), expiry, and — for approvers — the decision actions.
 */
export default async function PlanPage({ params }: { params: Promise<{ id: string }> }) {
  const viewer = await requirePageViewer();
  const plan = await loadPlan((await params).id);
  if (!plan) notFound();
  // Workers (role viewer) and viewers see the plan without the actions; the API enforces it too.
  const canDecide = viewer.kind === "user" && hasRole(viewer.role, "approver");
  return (
    <PlanDetail
      initial={plan}
      renderedAt={Date.parse(plan.asOf)}
      canDecide={canDecide}
      viewerName={viewer.name}
    />
  );
}
