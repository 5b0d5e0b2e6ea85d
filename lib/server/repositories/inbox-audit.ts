import Papa from "papaparse";
import type pg from "pg";

import { isoTime } from "@/lib/iso-time";
import type { InboxAuditEntry } from "@/lib/view-models/inbox";

/**
 * The inbox's audit: every decision and rule application on an inbox item (InboxAudit), every
 * plan decision (PlanDecision) and every tool a session ran while its plan waited for a decision
 * (UnapprovedWork: decision `worked_without_approval`, by `pitwall`), newest first, with the item's agent, host and session. Readable by
 * approvers and admins only (the route enforces it).
 */

type Row = Omit<InboxAuditEntry, "decidedAt" | "session"> & {
  decidedAt: Date;
  sessionId: number | null;
  sessionKey: string | null;
  sessionTitle: string | null;
};

/**
 * Audit entries, newest first: `sessionId` narrows to one agent session; `before` returns only
 * older ones; at most `limit` (default 200).
 */
export async function listInboxAudit(
  pool: pg.Pool,
  opts: { sessionId?: number; before?: Date; limit?: number } = {},
): Promise<InboxAuditEntry[]> {
  const res = await pool.query<Row>(
    `SELECT * FROM (
       SELECT 'item-' || a.id AS id, i.id::text AS "itemId", i.kind::text AS kind, a.decision, a.message, a."decidedBy", a.rule, (a."decidedBy" LIKE 'rule #%') AS "byRule",
              i.agent, h.name AS host, s.id AS "sessionId", s.key AS "sessionKey", s.title AS "sessionTitle", COALESCE(i.project, s.project) AS project,
              i."toolName", i.summary, a."decidedAt"
       FROM "InboxAudit" a JOIN "InboxItem" i ON i.id = a."itemId" JOIN "Host" h ON h.id = i."hostId" LEFT JOIN "AgentSession" s ON s.id = i."sessionId"
       WHERE ($1::int IS NULL OR i."sessionId" = $1) AND ($2::timestamptz IS NULL OR a."decidedAt" < $2)
       UNION ALL
       SELECT 'plan-' || d.id, 'plan-' || p.id, 'plan', d.decision::text, d.comment, d."decidedBy", NULL, false,
              COALESCE(s.source, 'api'), h.name, s.id, s.key, s.title, s.project, 'plan', p.title, d."decidedAt"
       FROM "PlanDecision" d JOIN "Plan" p ON p.id = d."planId" JOIN "Host" h ON h.id = p."hostId" LEFT JOIN "AgentSession" s ON s.id = p."sessionId"
       WHERE ($1::int IS NULL OR p."sessionId" = $1) AND ($2::timestamptz IS NULL OR d."decidedAt" < $2)
       UNION ALL
       SELECT 'work-' || w.id, 'plan-' || p.id, 'plan', 'worked_without_approval', 'ran ' || w.tool || ' before any decision on the plan', 'pitwall', NULL, false,
              s.source, h.name, s.id, s.key, s.title, s.project, w.tool, p.title, w.at
       FROM "UnapprovedWork" w JOIN "Plan" p ON p.id = w."planId" JOIN "Host" h ON h.id = p."hostId" JOIN "AgentSession" s ON s.id = w."sessionId"
       WHERE ($1::int IS NULL OR w."sessionId" = $1) AND ($2::timestamptz IS NULL OR w.at < $2)
     ) x ORDER BY "decidedAt" DESC, id DESC LIMIT $3`,
    [opts.sessionId ?? null, opts.before ?? null, opts.limit ?? 200],
  );
  return res.rows.map(({ sessionId, sessionKey, sessionTitle, decidedAt, ...r }) => ({
    ...r,
    session:
      sessionId !== null && sessionKey !== null
        ? { id: sessionId, key: sessionKey, title: sessionTitle }
        : null,
    decidedAt: isoTime(decidedAt),
  }));
}

/** CSV columns of the audit export, in order. */
export const AUDIT_CSV_COLUMNS = [
  "decidedAt",
  "decision",
  "decidedBy",
  "rule",
  "message",
  "kind",
  "item",
  "agent",
  "host",
  "session",
  "sessionTitle",
  "project",
  "tool",
  "summary",
] as const;

/**
 * The entries as CSV (RFC 4180, CRLF, a header row; cells starting with = + - @ are quoted with
 * a leading ' so a spreadsheet never runs what an agent wrote).
 */
export function auditCsv(entries: InboxAuditEntry[]): string {
  const data = entries.map((e) => [
    e.decidedAt,
    e.decision,
    e.decidedBy,
    e.rule ?? "",
    e.message ?? "",
    e.kind,
    e.itemId,
    e.agent,
    e.host,
    e.session?.key ?? "",
    e.session?.title ?? "",
    e.project ?? "",
    e.toolName ?? "",
    e.summary,
  ]);
  return `${Papa.unparse({ fields: [...AUDIT_CSV_COLUMNS], data }, { newline: "\r\n", escapeFormulae: true })}\r\n`;
}
