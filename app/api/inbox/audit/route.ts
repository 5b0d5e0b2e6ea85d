import { inboxAuditRoute, type InboxAuditResponse } from "@/lib/api/inbox";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { auditCsv, listInboxAudit } from "@/lib/server/repositories/inbox-audit";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/inbox/audit?session=&before=&limit=&format=json|csv (approvers and admins; viewers
 * and worker tokens 403) → `{entries}` newest first (default 200, max 10,000), or with
 * `format=csv` a CSV download (default limit 10,000). 400 `invalid_query`.
 */
export const GET = apiRoute("approver", inboxAuditRoute, async ({ query }) => {
  const { session, before, limit, format } = query;
  const entries = await listInboxAudit(pool(), {
    sessionId: session,
    before: before ? new Date(before) : undefined,
    limit: limit ?? (format === "csv" ? 10_000 : 200),
  });
  if (format === "json") {
    const answer: InboxAuditResponse = { entries };
    return json(answer);
  }
  const name = session ? `pitwall-inbox-audit-session-${session}.csv` : "pitwall-inbox-audit.csv";
  return new Response(auditCsv(entries), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
    },
  });
});
