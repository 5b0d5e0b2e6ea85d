import type { Metadata } from "next";
import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { pool } from "@/lib/server/db";
import { listInbox } from "@/lib/server/repositories/inbox";
import { InboxView } from "./_components/inbox-view";

export const metadata: Metadata = { title: "Inbox" };

/** /inbox: everything agents wait on across hosts and sessions, oldest first; approvers decide here. */
export default async function InboxPage() {
  const viewer = await requirePageViewer();
  const at = new Date();
  const items = await listInbox(pool(), { withDetail: viewer.kind === "user" }, at);
  const canDecide = viewer.kind === "user" && hasRole(viewer.role, "approver");
  return <InboxView initial={{ asOf: at.toISOString(), count: items.length, items }} renderedAt={at.getTime()} canDecide={canDecide} />;
}
