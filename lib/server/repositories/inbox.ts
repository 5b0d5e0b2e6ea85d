import type pg from "pg";
import { z } from "zod";

import {
  type InboxDecision,
  type InboxDecisionInput,
  type InboxRequestInput,
} from "@/lib/api/inbox";
import { inboxRuleInput, ruleLabel } from "@/lib/inbox/rules";
import { isoTime } from "@/lib/iso-time";
import { planOutlineMarkdown } from "@/lib/plans/outline-markdown";
import { LIVE_CHANNEL } from "@/lib/protocol/live";
import { mayChange } from "@/lib/server/auth/ownership";
import { inTransaction } from "@/lib/server/database/transaction";
import { AppError, ConflictError, ForbiddenError, NotFoundError } from "@/lib/server/errors";
import { effectiveExpiresInS, type InboxPolicy } from "@/lib/server/inbox-policy";
import { currentInboxPolicy } from "@/lib/server/inbox-policy-env";
import type { InboxEntry } from "@/lib/view-models/inbox";

import {
  applyRulesToWaiting,
  auditRuleDecision,
  insertInboxRule,
  ruleDecider,
  ruleFor,
} from "./inbox-rules";
import { INBOX_TOPIC, inboxDecisionTopic } from "./inbox-topics";
import type { TokenPrincipal } from "./tokens";

/**
 * The inbox: everything an agent waits on. Tool permissions (and later questions and notices)
 * are `InboxItem` rows created by the agent's hook through POST /api/inbox; waiting plans are
 * read from `Plan` and listed next to them (decided through decidePlan). Every decision or
 * closing of an item is appended to `InboxAudit`.
 */

export { INBOX_TOPIC, inboxDecisionTopic };

/** A decision on an item whose agent no longer waits (HTTP 409, code `answered_in_terminal` | `agent_ended` | `expired`). */
export class InboxNotWaitingError extends AppError {
  constructor(code: "answered_in_terminal" | "agent_ended" | "expired", message: string) {
    super(code as AppError["code"], message, 409);
  }
}

/** An "always allow" rule that does not validate for the item (HTTP 400 `invalid_body`). */
export class InboxBadRuleError extends AppError {
  constructor(message: string) {
    super("invalid_body" as AppError["code"], message, 400);
  }
}

/** An answer to a question that does not fit it (HTTP 400 `invalid_body`). */
export class InboxBadAnswerError extends AppError {
  constructor(message: string) {
    super("invalid_body" as AppError["code"], message, 400);
  }
}

const questionAnswers = z.record(z.string().min(1), z.string().trim().min(1).max(20_000));

/**
 * Checks a decision on a question item (AskUserQuestion): an allow must carry
 * `editedInput.answers` = {question text: chosen label(s) or free text}, with a non-empty answer
 * for every question the item asks; a deny declines to answer.
 * @throws InboxBadAnswerError when it does not fit.
 */
function checkQuestionDecision(input: InboxDecisionInput, asked: unknown): void {
  if (input.alwaysAllow) throw new InboxBadAnswerError("alwaysAllow does not apply to a question");
  if (input.decision !== "allow") return;
  const answers = questionAnswers.safeParse(input.editedInput?.answers);
  if (!answers.success || Object.keys(input.editedInput ?? {}).length !== 1)
    throw new InboxBadAnswerError(
      "answering a question takes editedInput: {answers: {<question text>: <answer>}} and nothing else",
    );
  const questions = Array.isArray((asked as { questions?: unknown } | null)?.questions)
    ? (asked as { questions: Array<{ question?: unknown }> }).questions
    : [];
  const missing = questions
    .map((q) => (typeof q?.question === "string" ? q.question : null))
    .filter((q): q is string => q !== null && !answers.data[q]);
  if (missing.length)
    throw new InboxBadAnswerError(`no answer for: ${missing.map((q) => `"${q}"`).join(", ")}`);
}

export type { InboxEntry };

async function notify(client: pg.PoolClient | pg.Pool, topics: string[]): Promise<void> {
  for (const topic of topics)
    await client.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, JSON.stringify({ topic })]);
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
    type Row = {
      id: number;
      status: string;
      decision: "allow" | "deny" | null;
      message: string | null;
      editedInput: Record<string, unknown> | null;
      decidedBy: string | null;
      decidedAt: Date | null;
      inserted: boolean;
    };
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
    await notify(client, [INBOX_TOPIC]);
    const decision =
      row.status === "decided" && row.decision
        ? {
            decision: row.decision,
            message: row.message,
            editedInput: row.editedInput,
            decidedBy: row.decidedBy ?? "",
            decidedAt: isoTime(row.decidedAt!),
          }
        : null;
    return { id: row.id, status: row.status, decision };
  });
}

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
      await notify(client, [inboxDecisionTopic(r.id)]);
    }
    if (res.rowCount) await notify(client, [INBOX_TOPIC]);
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

/**
 * Records a person's decision on inbox item `itemId` (first decision wins) and wakes its agent.
 * @throws NotFoundError unknown item; InboxNotWaitingError (409, `answered_in_terminal` /
 *   `agent_ended` / `expired`) when its agent no longer waits; ConflictError (409) when already
 *   decided — the message names who decided and when.
 */
export async function decideInboxItem(
  pool: pg.Pool,
  itemId: number,
  input: InboxDecisionInput,
  decidedBy: string,
  at: Date = new Date(),
): Promise<InboxDecision> {
  return inTransaction(pool, async (client) => {
    const res = await client.query<{
      status: string;
      expiresAt: Date;
      decidedBy: string | null;
      decidedAt: Date | null;
      decision: string | null;
      sessionState: string | null;
      toolName: string | null;
      kind: string;
      input: unknown;
    }>(
      `SELECT i.status, i."expiresAt", i."decidedBy", i."decidedAt", i.decision, s.state AS "sessionState", i."toolName", i.kind::text AS kind, i.input
       FROM "InboxItem" i LEFT JOIN "AgentSession" s ON s.id = i."sessionId" WHERE i.id = $1 FOR UPDATE OF i`,
      [itemId],
    );
    const item = res.rows[0];
    if (!item) throw new NotFoundError(`inbox item ${itemId} not found`);
    if (item.status === "decided")
      throw new ConflictError(
        `inbox item ${itemId} was already decided by ${item.decidedBy} at ${isoTime(item.decidedAt!)} (${item.decision}); a decision cannot change`,
      );
    if (item.status === "answered_in_terminal")
      throw new InboxNotWaitingError(
        "answered_in_terminal",
        `inbox item ${itemId} was answered in the terminal; the agent no longer waits for a decision here`,
      );
    if (
      item.status === "agent_ended" ||
      (item.status === "waiting" && item.sessionState === "ended")
    )
      throw new InboxNotWaitingError(
        "agent_ended",
        `inbox item ${itemId}'s agent ended; nobody waits for a decision`,
      );
    if (item.status === "expired" || item.expiresAt <= at)
      throw new InboxNotWaitingError(
        "expired",
        `inbox item ${itemId} expired at ${isoTime(item.expiresAt)}; the agent no longer waits`,
      );
    if (item.kind === "notice")
      throw new InboxBadAnswerError(
        `inbox item ${itemId} is a notice: it shows that the agent waits for input in its terminal and cannot be decided here`,
      );
    if (item.kind === "question") checkQuestionDecision(input, item.input);
    let rule: { id: number; label: string } | null = null;
    if (input.alwaysAllow) {
      const spec = inboxRuleInput.safeParse({
        effect: "allow",
        agent: input.alwaysAllow.agent,
        project: input.alwaysAllow.project,
        tool: item.toolName ?? "",
        pattern: input.alwaysAllow.pattern,
      });
      if (!spec.success)
        throw new InboxBadRuleError(
          `alwaysAllow: ${spec.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
        );
      const stored = await insertInboxRule(client, spec.data, decidedBy, at);
      rule = { id: stored.id, label: ruleLabel(stored) };
    }
    const edited =
      input.decision === "allow" && input.editedInput ? JSON.stringify(input.editedInput) : null;
    await client.query(
      `UPDATE "InboxItem" SET status = 'decided', decision = $2, message = $3, "editedInput" = $4::jsonb, "decidedBy" = $5, "decidedAt" = $6 WHERE id = $1`,
      [itemId, input.decision, input.message ?? null, edited, decidedBy, at],
    );
    await client.query(
      `INSERT INTO "InboxAudit" ("itemId", decision, message, "editedInput", "decidedBy", "decidedAt", "ruleId", rule) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8)`,
      [
        itemId,
        input.decision,
        input.message ?? null,
        edited,
        decidedBy,
        at,
        rule?.id ?? null,
        rule ? `wrote rule #${rule.id}: ${rule.label}` : null,
      ],
    );
    await notify(client, [INBOX_TOPIC, inboxDecisionTopic(itemId)]);
    // The new rule also settles the permissions already waiting that it covers.
    if (rule) await applyRulesToWaiting(client, at);
    return {
      decision: input.decision,
      message: input.message ?? null,
      editedInput: input.editedInput ?? null,
      decidedBy,
      decidedAt: isoTime(at),
    };
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
  const res = await pool.query<{
    hostId: number;
    hostName: string;
    status: string;
    decision: "allow" | "deny" | null;
    message: string | null;
    editedInput: Record<string, unknown> | null;
    decidedBy: string | null;
    decidedAt: Date | null;
    expiresAt: Date;
  }>(
    `SELECT i."hostId", h.name AS "hostName", i.status, i.decision, i.message, i."editedInput", i."decidedBy", i."decidedAt", i."expiresAt" FROM "InboxItem" i JOIN "Host" h ON h.id = i."hostId" WHERE i.id = $1`,
    [itemId],
  );
  const r = res.rows[0];
  if (!r) throw new NotFoundError(`inbox item ${itemId} not found`);
  if (!mayChange(principal, r))
    throw new ForbiddenError(
      `inbox item ${itemId} belongs to host ${r.hostName}; a token of host ${principal.hostName} may not read its decision`,
    );
  const decision =
    r.status === "decided" && r.decision
      ? {
          decision: r.decision,
          message: r.message,
          editedInput: r.editedInput,
          decidedBy: r.decidedBy ?? "",
          decidedAt: isoTime(r.decidedAt!),
        }
      : null;
  return { status: r.status, decision, expiresAt: isoTime(r.expiresAt) };
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
    await notify(client, [INBOX_TOPIC, inboxDecisionTopic(itemId)]);
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
    await notify(client, [inboxDecisionTopic(r.id)]);
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
    await notify(client, [inboxDecisionTopic(r.id)]);
  }
  return res.rowCount ?? 0;
}
