import type pg from "pg";

import { isWorkTool } from "@/lib/plans/work-tools";

/**
 * Records "worked without approval": session `sessionId` ran `tool` at `at` while one of its plans
 * waited for a decision. A plan counts when it was proposed at or before `at`, had no decision by
 * `at`, and is either still waiting or was decided after `at` (a plan closed without a decision,
 * answered in the terminal or expired, was not waiting in Pitwall any more). Tools that neither
 * edit files nor run commands are ignored. Re-sent activity changes nothing (unique per plan, time
 * and tool). Runs inside the ingest transaction.
 * @returns the ids of the plans flagged now (empty when none).
 */
export async function recordUnapprovedWork(
  client: pg.PoolClient,
  sessionId: number,
  tool: string,
  detail: string | null,
  at: Date,
): Promise<number[]> {
  if (!isWorkTool(tool)) return [];
  const res = await client.query<{ planId: number }>(
    `INSERT INTO "UnapprovedWork" ("planId", "sessionId", tool, detail, at)
     SELECT p.id, $1, $2, $3, $4 FROM "Plan" p
     WHERE p."sessionId" = $1 AND p."proposedAt" <= $4
       AND NOT EXISTS (SELECT 1 FROM "PlanDecision" d WHERE d."planId" = p.id AND d."decidedAt" <= $4)
       AND (p.status = 'proposed' OR EXISTS (SELECT 1 FROM "PlanDecision" d WHERE d."planId" = p.id))
     ON CONFLICT ("planId", at, tool) DO NOTHING
     RETURNING "planId"`,
    [sessionId, tool.slice(0, 200), detail, at],
  );
  return res.rows.map((r) => r.planId);
}
