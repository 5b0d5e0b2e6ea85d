import type pg from "pg";

import { type InboxDecision, type InboxRequestInput } from "@/lib/api/inbox";
import { isoTime } from "@/lib/iso-time";
import { mayChange } from "@/lib/server/auth/ownership";
import { inTransaction } from "@/lib/server/database/transaction";
import { ForbiddenError, NotFoundError } from "@/lib/server/errors";
import { effectiveExpiresInS, type InboxPolicy } from "@/lib/server/inbox-policy";
import { currentInboxPolicy } from "@/lib/server/inbox-policy-env";
import { notifyTopics } from "@/lib/server/live/publish";

import { auditRuleDecision, ruleDecider, ruleFor } from "./inbox-rules";
import { INBOX_TOPIC, inboxDecisionTopic } from "./inbox-topics";
import type { TokenPrincipal } from "./tokens";

/**
 * The inbox as its agents use it: an agent's hook opens an item (POST /api/inbox), long-polls
 * for its decision, and the item closes when the agent stops waiting (answered in the terminal,
 * agent or session ended). Listing is in inbox-list.ts, a person's decision in inbox-decisions.ts.
 * Every closing of an item is appended to `InboxAudit`.
 */

/** The columns of an `InboxItem` that hold its decision. */
type DecisionColumns = {
  status: string;
  decision: "allow" | "deny" | null;
  message: string | null;
  editedInput: Record<string, unknown> | null;
  decidedBy: string | null;
  decidedAt: Date | null;
};

/** An item's decision as its agent reads it, or null while it is not decided. */
function storedDecision(row: DecisionColumns): InboxDecision | null {
  return row.status === "decided" && row.decision
    ? {
        decision: row.decision,
        message: row.message,
        editedInput: row.editedInput,
        decidedBy: row.decidedBy ?? "",
        decidedAt: isoTime(row.decidedAt!),
      }
    : null;
}

/**
 * Opens (or, for a re-sent key of the same host, returns) an inbox item for `principal`'s host.
 * A permission that an inbox rule decides (lib/inbox/rules.ts; deny wins) is stored decided at
 * once, audited with the rule, and its decision returned, so the hook need not wait.
 * @returns the item's id, status and (when decided) its decision.
 */
export async function createInboxItem(
  pool: pg.Pool,
  principal: TokenPrincipal,
  input: InboxRequestInput,
  at: Date = new Date(),
  policy: InboxPolicy = currentInboxPolicy(),
): Promise<{ id: number; status: string; decision: InboxDecision | null }> {
  return inTransaction(pool, async (client) => {
    const session = input.session
      ? (
          await client.query<{ id: number }>(`SELECT id FROM "AgentSession" WHERE key = $1`, [
            input.session,
          ])
        ).rows[0]
      : undefined;
    const rule =
      input.kind === "permission"
        ? await ruleFor(client, {
            agent: input.agent,
            project: input.project ?? null,
            toolName: input.toolName ?? null,
            input: input.input ?? null,
            cwd: input.cwd ?? null,
          })
        : null;
    type Row = DecisionColumns & { id: number; inserted: boolean };
    const res = await client.query<Row>(
      `INSERT INTO "InboxItem" (key, kind, "hostId", "sessionId", agent, cwd, project, "gitBranch", "toolName", summary, input, diff, "createdAt", "expiresAt", status, decision, message, "decidedBy", "decidedAt")
       VALUES ($1, $2::"InboxKind", $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15::"InboxStatus", $16, $17, $18, $19)
       ON CONFLICT ("hostId", key) DO UPDATE SET key = EXCLUDED.key
       RETURNING id, status::text AS status, decision, message, "editedInput", "decidedBy", "decidedAt", (xmax = 0) AS inserted`,
      [
        input.key,
        input.kind,
        principal.hostId,
        session?.id ?? null,
        input.agent,
        input.cwd ?? null,
        input.project ?? null,
        input.gitBranch ?? null,
        input.toolName ?? null,
        input.summary,
        input.input === undefined ? null : JSON.stringify(input.input),
        input.diff ?? null,
        at,
        new Date(at.getTime() + effectiveExpiresInS(policy, input.kind, input.expiresInS) * 1000),
        rule ? "decided" : "waiting",
        rule?.effect ?? null,
        rule?.effect === "deny" ? rule.message : null,
        rule ? ruleDecider(rule) : null,
        rule ? at : null,
      ],
    );
    const row = res.rows[0]!;
    if (rule && row.inserted) await auditRuleDecision(client, row.id, rule, at);
    // A session waits for its person once: a newer notice replaces the older one.
    if (input.kind === "notice" && session && row.inserted)
      await closeSessionNotices(client, session.id, at, row.id);
    await notifyTopics(client, [INBOX_TOPIC]);
    return { id: row.id, status: row.status, decision: storedDecision(row) };
  });
}

/**
 * The item as its agent sees it: status, when it expires and, once decided, the decision.
 * @throws NotFoundError unknown item; ForbiddenError for a token of another host (unless `--shared`).
 */
export async function inboxItemForAgent(
  pool: pg.Pool,
  itemId: number,
  principal: TokenPrincipal,
): Promise<{ status: string; decision: InboxDecision | null; expiresAt: string }> {
  const res = await pool.query<
    DecisionColumns & { hostId: number; hostName: string; expiresAt: Date }
  >(
    `SELECT i."hostId", h.name AS "hostName", i.status, i.decision, i.message, i."editedInput", i."decidedBy", i."decidedAt", i."expiresAt" FROM "InboxItem" i JOIN "Host" h ON h.id = i."hostId" WHERE i.id = $1`,
    [itemId],
  );
  const r = res.rows[0];
  if (!r) throw new NotFoundError(`inbox item ${itemId} not found`);
  if (!mayChange(principal, r))
    throw new ForbiddenError(
      `inbox item ${itemId} belongs to host ${r.hostName}; a token of host ${principal.hostName} may not read its decision`,
    );
  return { status: r.status, decision: storedDecision(r), expiresAt: isoTime(r.expiresAt) };
}

/** Records that item `itemId`'s agent asks for the decision now (start of a long-poll). */
export async function noteInboxWaiter(
  pool: pg.Pool,
  itemId: number,
  at: Date = new Date(),
): Promise<void> {
  await pool.query(
    `UPDATE "InboxItem" SET "waiterSeenAt" = $2 WHERE id = $1 AND status = 'waiting'`,
    [itemId, at],
  );
}

/**
 * Closes item `itemId` when its agent's poll that ended at `leftAt` was the last one: the person
 * answered in the terminal (or the agent ended, when its session did). @returns 1 when closed.
 */
export async function closeInboxIfAbandoned(
  pool: pg.Pool,
  itemId: number,
  leftAt: Date,
  at: Date = new Date(),
): Promise<number> {
  return inTransaction(pool, async (client) => {
    const res = await client.query<{ status: string }>(
      `UPDATE "InboxItem" i SET status = (CASE WHEN s.state = 'ended' THEN 'agent_ended' ELSE 'answered_in_terminal' END)::"InboxStatus"
       FROM "InboxItem" i0 LEFT JOIN "AgentSession" s ON s.id = i0."sessionId"
       WHERE i0.id = i.id AND i.id = $1 AND i.status = 'waiting' AND (i."waiterSeenAt" IS NULL OR i."waiterSeenAt" <= $2)
       RETURNING i.status::text AS status`,
      [itemId, leftAt],
    );
    const closed = res.rows[0];
    if (!closed) return 0;
    await client.query(
      `INSERT INTO "InboxAudit" ("itemId", decision, message, "decidedBy", "decidedAt") VALUES ($1, $2, $3, 'pitwall', $4)`,
      [itemId, closed.status, closed.status.replace(/_/g, " "), at],
    );
    await notifyTopics(client, [INBOX_TOPIC, inboxDecisionTopic(itemId)]);
    return 1;
  });
}

/** Closes every waiting item of session `sessionId` as `agent_ended` (its agent ended). @returns how many. */
export async function closeSessionInboxItems(
  client: pg.PoolClient,
  sessionId: number,
  at: Date = new Date(),
): Promise<number> {
  const res = await client.query<{ id: number }>(
    `UPDATE "InboxItem" SET status = 'agent_ended' WHERE "sessionId" = $1 AND status = 'waiting' RETURNING id`,
    [sessionId],
  );
  for (const r of res.rows) {
    await client.query(
      `INSERT INTO "InboxAudit" ("itemId", decision, message, "decidedBy", "decidedAt") VALUES ($1, 'agent_ended', 'agent ended', 'pitwall', $2)`,
      [r.id, at],
    );
    await notifyTopics(client, [inboxDecisionTopic(r.id)]);
  }
  return res.rowCount ?? 0;
}

/**
 * Closes the waiting notices ("waiting for your input") of session `sessionId` as
 * `answered_in_terminal`, with an audit row "the session moved on": the agent works again, so
 * it no longer waits. `exceptId` keeps one (the notice being opened). @returns how many.
 */
export async function closeSessionNotices(
  client: pg.PoolClient,
  sessionId: number,
  at: Date = new Date(),
  exceptId: number | null = null,
): Promise<number> {
  const res = await client.query<{ id: number }>(
    `UPDATE "InboxItem" SET status = 'answered_in_terminal'
     WHERE "sessionId" = $1 AND kind = 'notice' AND status = 'waiting' AND id IS DISTINCT FROM $2 RETURNING id`,
    [sessionId, exceptId],
  );
  for (const r of res.rows) {
    await client.query(
      `INSERT INTO "InboxAudit" ("itemId", decision, message, "decidedBy", "decidedAt") VALUES ($1, 'answered_in_terminal', 'the session moved on', 'pitwall', $2)`,
      [r.id, at],
    );
    await notifyTopics(client, [inboxDecisionTopic(r.id)]);
  }
  return res.rowCount ?? 0;
}
