import type pg from "pg";

import { isoTime } from "@/lib/iso-time";
import { planOutlineMarkdown } from "@/lib/plans/outline-markdown";
import { inTransaction } from "@/lib/server/database/transaction";
import { type InboxPolicy } from "@/lib/server/inbox-policy";
import { currentInboxPolicy } from "@/lib/server/inbox-policy-env";
import { notifyTopics } from "@/lib/server/live/publish";
import type { InboxEntry } from "@/lib/view-models/inbox";

import { INBOX_TOPIC, inboxDecisionTopic } from "./inbox-topics";

/**
 * The inbox as people see it: everything an agent waits on. Tool permissions, questions and
 * notices are `InboxItem` rows (opened by agents, inbox-agent.ts); waiting plans are read from
 * `Plan` and listed next to them. Items past their expiry close here before any listing.
 */

/** What a person-less denial on expiry says (the model reads it after "pitwall (timeout) denied this in Pitwall: "). */
export const TIMEOUT_DENIAL =
  "nobody decided before the inbox timeout, so Pitwall's timeout policy denies it";
/** `decidedBy` of a denial on expiry. */
export const TIMEOUT_DECIDER = "pitwall (timeout)";

/**
 * Closes waiting items past their expiry, as the policy says for their kind: `expired` (the agent
 * asks in its terminal; the default) or decided `deny` by {@link TIMEOUT_DECIDER} — never
 * approved. An audit row each; waiting agents are woken. @returns how many.
 */
export async function expireInboxItems(
  pool: pg.Pool,
  at: Date = new Date(),
  policy: InboxPolicy = currentInboxPolicy(),
): Promise<number> {
  const denyKinds = Object.entries(policy.onExpiry)
    .filter(([, v]) => v === "deny")
    .map(([k]) => k);
  return inTransaction(pool, async (client) => {
    const res = await client.query<{ id: number; denied: boolean }>(
      `UPDATE "InboxItem" SET
         status = (CASE WHEN kind::text = ANY($2) THEN 'decided' ELSE 'expired' END)::"InboxStatus",
         decision = CASE WHEN kind::text = ANY($2) THEN 'deny' END,
         message = CASE WHEN kind::text = ANY($2) THEN $3 END,
         "decidedBy" = CASE WHEN kind::text = ANY($2) THEN $4 END,
         "decidedAt" = CASE WHEN kind::text = ANY($2) THEN $1::timestamptz END
       WHERE status = 'waiting' AND "expiresAt" <= $1 RETURNING id, (kind::text = ANY($2)) AS denied`,
      [at, denyKinds, TIMEOUT_DENIAL, TIMEOUT_DECIDER],
    );
    for (const r of res.rows) {
      await client.query(
        `INSERT INTO "InboxAudit" ("itemId", decision, message, "decidedBy", "decidedAt") VALUES ($1, $2, $3, $4, $5)`,
        r.denied
          ? [r.id, "deny", TIMEOUT_DENIAL, TIMEOUT_DECIDER, at]
          : [r.id, "expired", "no decision before the item expired", "pitwall", at],
      );
      await notifyTopics(client, [inboxDecisionTopic(r.id)]);
    }
    if (res.rowCount) await notifyTopics(client, [INBOX_TOPIC]);
    return res.rowCount ?? 0;
  });
}

/** How many things wait in the inbox (items and plans), for the top bar and the wall. */
export async function inboxCount(pool: pg.Pool, at: Date = new Date()): Promise<number> {
  const res = await pool.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM "InboxItem" WHERE status = 'waiting' AND "expiresAt" > $1)
          + (SELECT count(*) FROM "Plan" WHERE status = 'proposed' AND "expiresAt" > $1) AS n`,
    [at],
  );
  return Number(res.rows[0]?.n ?? 0);
}

const TODO_IN_PROGRESS = `(SELECT COALESCE(t->>'activeForm', t->>'content') FROM "TodoSnapshot" ts, jsonb_array_elements(ts.items) t
   WHERE ts."sessionId" = s.id AND t->>'status' = 'in_progress' AND ts.seq = (SELECT max(seq) FROM "TodoSnapshot" WHERE "sessionId" = s.id) LIMIT 1)`;

/**
 * Every waiting entry, oldest first: inbox items and proposed plans, each with its host,
 * session, project, branch, the todo item in progress and how long it waits. `withDetail`
 * (signed-in people only) includes the tool input, diff and plan markdown; else they are null.
 */
export async function listInbox(
  pool: pg.Pool,
  opts: { withDetail: boolean },
  at: Date = new Date(),
): Promise<InboxEntry[]> {
  await expireInboxItems(pool, at);
  type Row = Omit<InboxEntry, "id" | "createdAt" | "waitingMs" | "session" | "href" | "planId"> & {
    rowId: number;
    createdAt: Date;
    sessionId: number | null;
    sessionKey: string | null;
    sessionTitle: string | null;
    rationale?: string | null;
    planItems?: unknown;
  };
  const items = await pool.query<Row>(
    `SELECT i.id AS "rowId", i.kind::text AS kind, i.agent, h.name AS host, s.id AS "sessionId", s.key AS "sessionKey", s.title AS "sessionTitle",
            COALESCE(i.project, s.project) AS project, COALESCE(i.cwd, s.cwd) AS cwd, COALESCE(i."gitBranch", s."gitBranch") AS "gitBranch",
            i."toolName", i.summary, i.input, i.diff, NULL AS body, NULL AS supersedes, ${TODO_IN_PROGRESS} AS "todoInProgress", i."createdAt"
     FROM "InboxItem" i JOIN "Host" h ON h.id = i."hostId" LEFT JOIN "AgentSession" s ON s.id = i."sessionId"
     WHERE i.status = 'waiting' AND i."expiresAt" > $1`,
    [at],
  );
  const plans = await pool.query<Row>(
    `SELECT p.id AS "rowId", 'plan' AS kind, COALESCE(s.source, 'api') AS agent, h.name AS host, s.id AS "sessionId", s.key AS "sessionKey", s.title AS "sessionTitle",
            s.project, s.cwd, s."gitBranch", 'plan' AS "toolName", p.title AS summary, NULL::jsonb AS input, NULL AS diff, p.body, p.rationale, p.items AS "planItems", p.supersedes, ${TODO_IN_PROGRESS} AS "todoInProgress", p."proposedAt" AS "createdAt"
     FROM "Plan" p JOIN "Host" h ON h.id = p."hostId" LEFT JOIN "AgentSession" s ON s.id = p."sessionId"
     WHERE p.status = 'proposed' AND p."expiresAt" > $1`,
    [at],
  );
  const entries = [...items.rows, ...plans.rows].map((r): InboxEntry => ({
    id: r.kind === "plan" ? `plan-${r.rowId}` : String(r.rowId),
    kind: r.kind,
    agent: r.agent,
    host: r.host,
    session:
      r.sessionId !== null && r.sessionKey !== null
        ? { id: r.sessionId, key: r.sessionKey, title: r.sessionTitle }
        : null,
    project: r.project,
    cwd: r.cwd,
    gitBranch: r.gitBranch,
    toolName: r.toolName,
    summary: r.summary,
    input: opts.withDetail ? r.input : null,
    diff: opts.withDetail ? r.diff : null,
    // A plan without markdown shows its rationale and items instead.
    body: opts.withDetail
      ? (r.body ??
        (r.kind === "plan" ? planOutlineMarkdown(r.rationale ?? null, r.planItems) : null))
      : null,
    todoInProgress: r.todoInProgress,
    href: r.kind === "plan" ? `/plans/${r.rowId}` : null,
    planId: r.kind === "plan" ? r.rowId : null,
    supersedes: r.supersedes,
    createdAt: isoTime(r.createdAt),
    waitingMs: Math.max(0, at.getTime() - r.createdAt.getTime()),
  }));
  return entries.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
