import type { Metadata } from "next";
import { headers } from "next/headers";

import { planListQuery } from "@/lib/api/plans";
import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listPlans } from "@/lib/server/repositories/plans";

import { PlansView } from "./_components/plans-view";

export const metadata: Metadata = { title: "Plans" };

/** The URL this request reached us on (behind a proxy: X-Forwarded-*), for copy-paste commands. */
function requestOrigin(h: Headers): string {
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:8080";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

/** /plans: plans awaiting a decision first (approvers decide them inline), then decided ones, newest first; live. */
export default async function PlansPage() {
  const viewer = await requirePageViewer();
  const h = await headers();
  const initial = await listPlans(prisma(), planListQuery.parse({}));
  // The same rule as the plan page: only people with the approver role get the decision actions.
  const canDecide = viewer.kind === "user" && hasRole(viewer.role, "approver");
  return (
    <PlansView
      initial={initial}
      renderedAt={Date.parse(initial.asOf)}
      origin={requestOrigin(h)}
      canDecide={canDecide}
    />
  );
}
