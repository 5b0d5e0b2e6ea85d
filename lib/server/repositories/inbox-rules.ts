import type pg from "pg";

import {
  decideByRules,
  ruleLabel,
  type InboxRuleInput,
  type RuleSpec,
  type RuleTarget,
} from "@/lib/inbox/rules";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { inTransaction } from "@/lib/server/database/transaction";
import { NotFoundError } from "@/lib/server/errors";
import { notifyTopics } from "@/lib/server/live/publish";
import type { InboxRuleView } from "@/lib/view-models/inbox";

import { INBOX_TOPIC, inboxDecisionTopic } from "./inbox-topics";

/**
 * Inbox rules (InboxRule): allow/deny tool permissions as their hooks open them (matching in
 * lib/inbox/rules.ts). Applying a rule decides the item at once and appends an InboxAudit row
 * naming the rule; a new or changed rule is also applied to permissions already waiting.
 */

type Db = pg.Pool | pg.PoolClient;

/** Live topic of the rule list. */
export const INBOX_RULES_TOPIC = "inbox-rules";

/** A stored rule as the matcher and the audit need it. */
export interface StoredRule extends RuleSpec {
  message: string | null;
}

/** Who decided when a rule did: `rule #3 (deny Bash(rm -rf *) everywhere)`; the hook shows it to the model. */
export const ruleDecider = (rule: StoredRule): string => `rule #${rule.id} (${ruleLabel(rule)})`;

/** Every rule, for evaluation. */
export async function loadRules(db: Db): Promise<StoredRule[]> {
  const res = await db.query<StoredRule>(
    `SELECT id, effect, agent, project, tool, pattern, message FROM "InboxRule" ORDER BY id`,
  );
  return res.rows;
}

/** Every rule with how often it decided and when last, oldest first. */
export async function listInboxRules(db: Db): Promise<InboxRuleView[]> {
  const res = await db.query<
    StoredRule & {
      createdBy: string;
      createdAt: Date;
      updatedAt: Date;
      applied: string;
      lastAppliedAt: Date | null;
    }
  >(
    `SELECT r.id, r.effect, r.agent, r.project, r.tool, r.pattern, r.message, r."createdBy", r."createdAt", r."updatedAt",
            count(a.id) FILTER (WHERE a.decision IN ('allow', 'deny') AND a."decidedBy" LIKE 'rule #%') AS applied,
            max(a."decidedAt") FILTER (WHERE a."decidedBy" LIKE 'rule #%') AS "lastAppliedAt"
     FROM "InboxRule" r LEFT JOIN "InboxAudit" a ON a."ruleId" = r.id
     GROUP BY r.id ORDER BY r.id`,
  );
  return res.rows.map((r) => ({
    id: r.id,
    effect: r.effect,
    agent: r.agent,
    project: r.project,
    tool: r.tool,
    pattern: r.pattern,
    message: r.message,
    label: ruleLabel(r),
    createdBy: r.createdBy,
    createdAt: isoTime(r.createdAt),
    updatedAt: isoTime(r.updatedAt),
    appliedCount: Number(r.applied),
    lastAppliedAt: isoTimeOrNull(r.lastAppliedAt),
  }));
}

/** Stores a new rule. @returns it as stored. */
export async function insertInboxRule(
  db: Db,
  input: InboxRuleInput,
  by: string,
  at: Date = new Date(),
): Promise<StoredRule> {
  const res = await db.query<StoredRule>(
    `INSERT INTO "InboxRule" (effect, agent, project, tool, pattern, message, "createdBy", "createdAt", "updatedAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id, effect, agent, project, tool, pattern, message`,
    [input.effect, input.agent, input.project, input.tool, input.pattern, input.message, by, at],
  );
  await notifyTopics(db, [INBOX_RULES_TOPIC]);
  return res.rows[0]!;
}

/** Replaces rule `id`'s settings. @throws NotFoundError when unknown. */
export async function updateInboxRule(
  db: Db,
  id: number,
  input: InboxRuleInput,
  at: Date = new Date(),
): Promise<StoredRule> {
  const res = await db.query<StoredRule>(
    `UPDATE "InboxRule" SET effect = $2, agent = $3, project = $4, tool = $5, pattern = $6, message = $7, "updatedAt" = $8 WHERE id = $1
     RETURNING id, effect, agent, project, tool, pattern, message`,
    [id, input.effect, input.agent, input.project, input.tool, input.pattern, input.message, at],
  );
  if (!res.rows[0]) throw new NotFoundError(`inbox rule ${id} not found`);
  await notifyTopics(db, [INBOX_RULES_TOPIC]);
  return res.rows[0];
}

/** Deletes rule `id` (its audit rows keep the rule's text). @throws NotFoundError when unknown. */
export async function deleteInboxRule(db: Db, id: number): Promise<void> {
  const res = await db.query(`DELETE FROM "InboxRule" WHERE id = $1`, [id]);
  if (!res.rowCount) throw new NotFoundError(`inbox rule ${id} not found`);
  await notifyTopics(db, [INBOX_RULES_TOPIC]);
}

/** The rule that decides a permission request with `target`, or null (a person decides). */
export async function ruleFor(db: Db, target: RuleTarget): Promise<StoredRule | null> {
  return decideByRules(await loadRules(db), target);
}

/**
 * Records that `rule` decided item `itemId` (already marked decided by the caller): one audit
 * row with the rule's id and text.
 */
export async function auditRuleDecision(
  db: Db,
  itemId: number,
  rule: StoredRule,
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO "InboxAudit" ("itemId", decision, message, "decidedBy", "decidedAt", "ruleId", rule) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      itemId,
      rule.effect,
      rule.effect === "deny" ? rule.message : null,
      ruleDecider(rule),
      at,
      rule.id,
      ruleLabel(rule),
    ],
  );
}

/**
 * Applies the rules to every permission still waiting (after a rule was added or changed): each
 * item a rule decides is closed with that decision, audited, and its waiting agent woken.
 * Runs inside the caller's transaction. @returns the ids decided.
 */
export async function applyRulesToWaiting(
  client: pg.PoolClient,
  at: Date = new Date(),
): Promise<number[]> {
  const rules = await loadRules(client);
  if (rules.length === 0) return [];
  const waiting = await client.query<{
    id: number;
    agent: string;
    project: string | null;
    toolName: string | null;
    input: Record<string, unknown> | null;
    cwd: string | null;
  }>(
    `SELECT id, agent, project, "toolName", input, cwd FROM "InboxItem" WHERE status = 'waiting' AND kind = 'permission' AND "expiresAt" > $1 FOR UPDATE SKIP LOCKED`,
    [at],
  );
  const decided: number[] = [];
  for (const item of waiting.rows) {
    const rule = decideByRules(rules, item);
    if (!rule) continue;
    await client.query(
      `UPDATE "InboxItem" SET status = 'decided', decision = $2, message = $3, "decidedBy" = $4, "decidedAt" = $5 WHERE id = $1`,
      [item.id, rule.effect, rule.effect === "deny" ? rule.message : null, ruleDecider(rule), at],
    );
    await auditRuleDecision(client, item.id, rule, at);
    await notifyTopics(client, [inboxDecisionTopic(item.id)]);
    decided.push(item.id);
  }
  if (decided.length) await notifyTopics(client, [INBOX_TOPIC]);
  return decided;
}

/** Adds a rule and applies it to the permissions already waiting. @returns the rule and the item ids it decided. */
export async function createInboxRule(
  pool: pg.Pool,
  input: InboxRuleInput,
  by: string,
  at: Date = new Date(),
): Promise<{ rule: StoredRule; decidedItemIds: number[] }> {
  return inTransaction(pool, async (client) => {
    const rule = await insertInboxRule(client, input, by, at);
    return { rule, decidedItemIds: await applyRulesToWaiting(client, at) };
  });
}

/** Changes rule `id` and applies the rules to the permissions already waiting. @throws NotFoundError when unknown. */
export async function changeInboxRule(
  pool: pg.Pool,
  id: number,
  input: InboxRuleInput,
  at: Date = new Date(),
): Promise<{ rule: StoredRule; decidedItemIds: number[] }> {
  return inTransaction(pool, async (client) => {
    const rule = await updateInboxRule(client, id, input, at);
    return { rule, decidedItemIds: await applyRulesToWaiting(client, at) };
  });
}
