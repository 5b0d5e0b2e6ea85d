import type pg from "pg";

import { type DecisionInput } from "@/lib/api/plans";
import { isoTime } from "@/lib/iso-time";
import type { PlanDecisionFrame, PlanItem } from "@/lib/protocol";
import { mayChange, notOwnerMessage } from "@/lib/server/auth/ownership";
import { inTransaction } from "@/lib/server/database/transaction";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PlanNotWaitingError,
} from "@/lib/server/errors";
import { planDecisionTopic } from "@/lib/server/live/bus";
import { notifyTopics } from "@/lib/server/live/publish";

import type { TokenPrincipal } from "./tokens";

/**
 * Records a decision on a proposed plan and announces it (the proposer's socket and long-poll
 * receive it). A decided plan is immutable.
 * @throws NotFoundError for an unknown plan; PlanNotWaitingError (409, `plan_answered_in_terminal`
 *   / `plan_agent_ended`) when its agent stopped waiting; ConflictError when it is no longer
 *   `proposed` (already decided or expired; the message names who decided and when).
 */
export async function decidePlan(
  pool: pg.Pool,
  planId: number,
  input: DecisionInput,
  decidedBy: string,
  at: Date = new Date(),
): Promise<PlanDecisionFrame> {
  return inTransaction(pool, async (client) => {
    const res = await client.query<{
      key: string;
      status: string;
      items: PlanItem[];
      expiresAt: Date;
      closedReason: string | null;
    }>(
      `SELECT key, status, items, "expiresAt", "closedReason" FROM "Plan" WHERE id = $1 FOR UPDATE`,
      [planId],
    );
    const plan = res.rows[0];
    if (!plan) throw new NotFoundError(`plan ${planId} not found`);
    if (plan.closedReason === "answered_in_terminal")
      throw new PlanNotWaitingError(
        "plan_answered_in_terminal",
        `plan ${planId} was answered in the terminal; the agent no longer waits for a decision here`,
      );
    if (plan.closedReason === "agent_ended")
      throw new PlanNotWaitingError(
        "plan_agent_ended",
        `plan ${planId}'s agent ended; nobody waits for a decision`,
      );
    if (plan.status !== "proposed") {
      // Say who got there first: the person deciding sees "already approved by alice".
      const last = await client.query<{ decidedBy: string; decidedAt: Date }>(
        `SELECT "decidedBy", "decidedAt" FROM "PlanDecision" WHERE "planId" = $1 ORDER BY id DESC LIMIT 1`,
        [planId],
      );
      const d = last.rows[0];
      const what = plan.status.replace("_", " ");
      if (plan.status === "expired" || !d)
        throw new ConflictError(
          `plan ${planId} is already ${what}${d ? ` (since ${isoTime(d.decidedAt)})` : ""}; a decided plan cannot change`,
        );
      throw new ConflictError(
        `plan ${planId} was already decided by ${d.decidedBy} at ${isoTime(d.decidedAt)} (${what}); a decided plan cannot change`,
      );
    }
    if (plan.expiresAt <= at)
      throw new ConflictError(`plan ${planId} expired at ${isoTime(plan.expiresAt)}`);
    const items = input.items ?? plan.items;
    await client.query(
      `INSERT INTO "PlanDecision" ("planId", decision, items, comment, "decidedBy", "decidedAt") VALUES ($1, $2::"PlanStatus", $3::jsonb, $4, $5, $6)`,
      [planId, input.decision, JSON.stringify(items), input.comment ?? null, decidedBy, at],
    );
    await client.query(`UPDATE "Plan" SET status = $2::"PlanStatus" WHERE id = $1`, [
      planId,
      input.decision,
    ]);
    await notifyTopics(client, ["plans", "inbox", `plan:${planId}`, planDecisionTopic(plan.key)]);
    return {
      v: 1,
      type: "plan.decision",
      plan: plan.key,
      decision: input.decision,
      items,
      comment: input.comment ?? null,
      decidedBy,
      decidedAt: at.getTime(),
    };
  });
}

/** Marks proposed plans past their expiry as expired (with a decision row) and announces them. */
export async function expirePlans(pool: pg.Pool, at: Date = new Date()): Promise<number> {
  return inTransaction(pool, async (client) => {
    const res = await client.query<{ id: number; key: string; items: PlanItem[] }>(
      `UPDATE "Plan" SET status = 'expired' WHERE status = 'proposed' AND "expiresAt" <= $1 RETURNING id, key, items`,
      [at],
    );
    for (const p of res.rows) {
      await client.query(
        `INSERT INTO "PlanDecision" ("planId", decision, items, comment, "decidedBy", "decidedAt") VALUES ($1, 'expired', $2::jsonb, 'no decision before the plan expired', 'pitwall', $3)`,
        [p.id, JSON.stringify(p.items), at],
      );
      await notifyTopics(client, [`plan:${p.id}`, planDecisionTopic(p.key)]);
    }
    if (res.rowCount) await notifyTopics(client, ["plans", "inbox"]);
    return res.rowCount ?? 0;
  });
}

/**
 * Checks that `principal` may receive the decision on plan `key`: only the proposer's host (or a
 * `--shared` token) is told what was decided.
 * @throws NotFoundError for an unknown plan key; ForbiddenError (code `forbidden`, naming the
 *   owner) for another host's token.
 */
export async function assertPlanProposer(
  pool: pg.Pool,
  key: string,
  principal: TokenPrincipal,
): Promise<void> {
  const res = await pool.query<{ hostId: number; hostName: string }>(
    `SELECT p."hostId", h.name AS "hostName" FROM "Plan" p JOIN "Host" h ON h.id = p."hostId" WHERE p.key = $1`,
    [key],
  );
  const owner = res.rows[0];
  if (!owner) throw new NotFoundError(`plan '${key}' not found`);
  if (!mayChange(principal, owner))
    throw new ForbiddenError(
      notOwnerMessage("plan", key, owner, principal, "read the decision of"),
    );
}

/**
 * The decision on plan `key` as the proposer receives it, or null while undecided.
 * @throws NotFoundError for an unknown plan key.
 */
export async function planDecision(pool: pg.Pool, key: string): Promise<PlanDecisionFrame | null> {
  const res = await pool.query<{
    status: string;
    decision: string | null;
    items: PlanItem[] | null;
    comment: string | null;
    decidedBy: string | null;
    decidedAt: Date | null;
  }>(
    `SELECT p.status, d.decision, d.items, d.comment, d."decidedBy", d."decidedAt"
     FROM "Plan" p LEFT JOIN LATERAL (SELECT * FROM "PlanDecision" WHERE "planId" = p.id ORDER BY id DESC LIMIT 1) d ON true
     WHERE p.key = $1`,
    [key],
  );
  const row = res.rows[0];
  if (!row) throw new NotFoundError(`plan '${key}' not found`);
  if (row.status === "proposed" || !row.decision) return null;
  return {
    v: 1,
    type: "plan.decision",
    plan: key,
    decision: row.decision as PlanDecisionFrame["decision"],
    items: row.items ?? [],
    comment: row.comment,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.getTime() ?? 0,
  };
}
