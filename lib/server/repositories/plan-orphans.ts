import type pg from "pg";

import { inTransaction } from "@/lib/server/database/transaction";
import { planDecisionTopic } from "@/lib/server/live/bus";
import { notifyTopics } from "@/lib/server/live/publish";

/**
 * Plans nobody waits for any more. An agent's plan gate long-polls
 * GET /api/plans/:key/decision while it waits; when that poll ends early (the hook process was
 * stopped: the person answered in the terminal, or the agent ended) and no newer poll started
 * within PLAN_WAITER_GRACE_MS, the plan is closed as expired with the reason, so it leaves the
 * waiting lists and cannot be decided (decidePlan refuses it with 409 and the reason's code).
 */

/** Why a plan closed without a decision. */
export type PlanClosedReason = "answered_in_terminal" | "agent_ended";

/** How long a plan's proposer may be away between two polls before the plan counts as orphaned (ms). */
export const PLAN_WAITER_GRACE_MS = 5000;

/** The decision-row comment (what people and the agent read) for each reason. */
export const PLAN_CLOSED_COMMENT: Record<PlanClosedReason, string> = {
  answered_in_terminal: "answered in the terminal",
  agent_ended: "agent ended",
};

/** Records that the proposer of plan `key` asks for its decision now (start of a long-poll). */
export async function noteWaiter(pool: pg.Pool, key: string, at: Date = new Date()): Promise<void> {
  await pool.query(`UPDATE "Plan" SET "waiterSeenAt" = $2 WHERE key = $1 AND status = 'proposed'`, [
    key,
    at,
  ]);
}

async function closeWhere(
  client: pg.PoolClient,
  where: string,
  params: unknown[],
  at: Date,
): Promise<number> {
  // The reason comes from the session: ended → "agent ended", else the terminal answered.
  const res = await client.query<{
    id: number;
    key: string;
    items: unknown;
    reason: PlanClosedReason;
  }>(
    `UPDATE "Plan" p SET status = 'expired',
       "closedReason" = CASE WHEN s.state = 'ended' THEN 'agent_ended' ELSE 'answered_in_terminal' END
     FROM "Plan" p0 LEFT JOIN "AgentSession" s ON s.id = p0."sessionId"
     WHERE p0.id = p.id AND p.status = 'proposed' AND ${where}
     RETURNING p.id, p.key, p.items, p."closedReason" AS reason`,
    params,
  );
  for (const p of res.rows) {
    await client.query(
      `INSERT INTO "PlanDecision" ("planId", decision, items, comment, "decidedBy", "decidedAt") VALUES ($1, 'expired', $2::jsonb, $3, 'pitwall', $4)`,
      [p.id, JSON.stringify(p.items), PLAN_CLOSED_COMMENT[p.reason], at],
    );
    await notifyTopics(client, [`plan:${p.id}`, planDecisionTopic(p.key)]);
  }
  if (res.rowCount) await notifyTopics(client, ["plans", "inbox"]);
  return res.rowCount ?? 0;
}

/**
 * Closes plan `key` when its proposer's poll that ended at `leftAt` was the last one (no poll
 * started after it). @returns 1 when closed, 0 when it still waits or was decided meanwhile.
 */
export async function closeIfAbandoned(
  pool: pg.Pool,
  key: string,
  leftAt: Date,
  at: Date = new Date(),
): Promise<number> {
  return inTransaction(pool, (client) =>
    closeWhere(
      client,
      `p.key = $1 AND (p."waiterSeenAt" IS NULL OR p."waiterSeenAt" <= $2)`,
      [key, leftAt],
      at,
    ),
  );
}

/** Closes every still-proposed plan of the session with id `sessionId` (its agent ended). @returns how many. */
export async function closeSessionPlans(
  client: pg.PoolClient,
  sessionId: number,
  at: Date = new Date(),
): Promise<number> {
  return closeWhere(client, `p."sessionId" = $1`, [sessionId], at);
}
