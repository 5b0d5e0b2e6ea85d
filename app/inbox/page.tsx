import type { Metadata } from "next";
import Link from "next/link";

import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { pool } from "@/lib/server/db";
import { listInboxAudit } from "@/lib/server/repositories/inbox-audit";
import { listInbox } from "@/lib/server/repositories/inbox-list";
import { listInboxRules } from "@/lib/server/repositories/inbox-rules";

import { InboxHistory } from "./_components/inbox-history";
import { InboxRules } from "./_components/inbox-rules";
import { InboxView } from "./_components/inbox-view";

export const metadata: Metadata = { title: "Inbox" };

const TABS = [
  { tab: "waiting", label: "Waiting" },
  { tab: "rules", label: "Rules" },
  { tab: "history", label: "History" },
] as const;

/**
 * /inbox: everything agents wait on, oldest first (approvers decide; `?item=12` selects that
 * item, the link of its notification); `?tab=rules` the allow/deny rules; `?tab=history` the
 * audit (approvers and admins).
 */
export default async function InboxPage({
  searchParams,
}: {
  searchParams: Promise<{ tab?: string | string[]; item?: string | string[] }>;
}) {
  const viewer = await requirePageViewer();
  const canDecide = viewer.kind === "user" && hasRole(viewer.role, "approver");
  const { tab: asked, item: askedItem } = await searchParams;
  const tab =
    TABS.find((t) => t.tab === asked && (t.tab !== "history" || canDecide))?.tab ?? "waiting";
  const at = new Date();
  const items =
    tab === "waiting" ? await listInbox(pool(), { withDetail: viewer.kind === "user" }, at) : [];
  return (
    <div className="grid gap-4">
      <nav aria-label="Inbox sections" className="flex flex-wrap gap-1 border-b border-border">
        {TABS.filter((t) => t.tab !== "history" || canDecide).map((t) => (
          <Link
            key={t.tab}
            href={t.tab === "waiting" ? "/inbox" : `/inbox?tab=${t.tab}`}
            aria-current={t.tab === tab ? "page" : undefined}
            className={`inline-flex min-h-11 items-center px-3 text-sm ${t.tab === tab ? "border-b-2 border-primary font-medium" : "text-muted-fg hover:text-foreground"}`}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      {tab !== "waiting" && <h1 className="text-lg font-semibold tracking-tight">Inbox</h1>}
      {tab === "waiting" && (
        <InboxView
          initial={{ asOf: at.toISOString(), count: items.length, items }}
          renderedAt={at.getTime()}
          canDecide={canDecide}
          selectedId={typeof askedItem === "string" ? askedItem : undefined}
        />
      )}
      {tab === "rules" && <InboxRules initial={await listInboxRules(pool())} canEdit={canDecide} />}
      {tab === "history" && <InboxHistory initial={await listInboxAudit(pool(), { limit: 200 })} />}
    </div>
  );
}
