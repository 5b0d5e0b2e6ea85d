import type { Metadata } from "next";

import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listBaselines } from "@/lib/server/repositories/baselines";

import { BaselinesView } from "./_components/baselines-view";

export const metadata: Metadata = { title: "Baselines" };

/**
 * /baselines: the reference figures drawn as labelled lines on eval charts (e.g. τ 12.4 of a public
 * drafter). Everyone sees the list; approvers also create, edit and delete (the API enforces it
 * too). Live on `baselines` (also pushed by workers as baseline.upsert).
 */
export default async function BaselinesPage() {
  const viewer = await requirePageViewer();
  const canEdit = viewer.kind === "user" && hasRole(viewer.role, "approver");
  const initial = await listBaselines(prisma());
  return (
    <BaselinesView initial={initial} renderedAt={Date.parse(initial.asOf)} canEdit={canEdit} />
  );
}
