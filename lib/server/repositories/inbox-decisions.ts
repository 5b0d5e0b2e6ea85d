import type pg from "pg";
import { z } from "zod";

import { type InboxDecision, type InboxDecisionInput } from "@/lib/api/inbox";
import { inboxRuleInput, ruleLabel } from "@/lib/inbox/rules";
import { isoTime } from "@/lib/iso-time";
import { inTransaction } from "@/lib/server/database/transaction";
import { AppError, ConflictError, NotFoundError } from "@/lib/server/errors";
import { notifyTopics } from "@/lib/server/live/publish";

import { applyRulesToWaiting, insertInboxRule } from "./inbox-rules";
import { INBOX_TOPIC, inboxDecisionTopic } from "./inbox-topics";

/**
 * A person's decision on an inbox item (waiting plans are decided through decidePlan). Every
 * decision is appended to `InboxAudit`; an "always allow" also writes an inbox rule.
 */

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
    await notifyTopics(client, [INBOX_TOPIC, inboxDecisionTopic(itemId)]);
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
