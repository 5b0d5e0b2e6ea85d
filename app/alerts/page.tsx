import type { Metadata } from "next";

import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listAlertRules } from "@/lib/server/repositories/alert-rules";

import { AlertRulesView } from "./_components/alert-rules-view";

export const metadata: Metadata = { title: "Alert rules" };

/** /alerts: every alert rule with the runs it fires on; approvers add, pause and delete rules. */
export default async function AlertsPage() {
  const viewer = await requirePageViewer();
  const rules = await listAlertRules(prisma());
  return (
    <AlertRulesView
      initial={rules}
      canEdit={viewer.kind === "user" && hasRole(viewer.role, "approver")}
    />
  );
}
