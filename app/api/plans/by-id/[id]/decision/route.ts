import { pool } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { decidePlan, decisionInput } from "@/lib/server/repositories/plan-decisions";

/** The decision body, with a non-blank comment required to request changes (blank comments dropped). */
const decisionBody = decisionInput
  .transform((d) => ({ ...d, comment: d.comment?.trim() ? d.comment.trim() : undefined }))
  .refine((d) => d.decision !== "changes_requested" || d.comment !== undefined, {
    message: "a comment is required to request changes",
    path: ["comment"],
  });

/**
 * POST /api/plans/by-id/:id/decision `{decision, items?, comment?}` — a person with the approver
 * role decides a proposed plan; the proposer receives it at once. 200 `{decision}` (the
 * `plan.decision` frame sent to the proposer); 400 bad body; 401/403 without the approver role or
 * from another site; 404 unknown plan; 409 when it was already decided (the message says by whom)
 * or has expired; 415 unless JSON.
 */
export const POST = withViewer(
  "approver",
  async (request, viewer, ctx: { params: Promise<{ id: string }> }) => {
    const { id } = await ctx.params;
    const planId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(planId) || planId <= 0)
      return errorResponse(400, "invalid_query", "plan id must be a positive integer");
    const input = await parseJsonBody(request, decisionBody);
    if (input instanceof Response) return input;
    return json({ decision: await decidePlan(pool(), planId, input, viewer.name) });
  },
);
