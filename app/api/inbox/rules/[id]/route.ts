import { inboxRuleInput } from "@/lib/inbox/rules";
import { pool } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { changeInboxRule, deleteInboxRule } from "@/lib/server/repositories/inbox-rules";

type Ctx = { params: Promise<{ id: string }> };

async function ruleIdOf(ctx: Ctx): Promise<number | Response> {
  const id = Number((await ctx.params).id);
  if (!Number.isSafeInteger(id) || id <= 0)
    return errorResponse(400, "invalid_query", "rule id must be a positive integer");
  return id;
}

/** PUT /api/inbox/rules/:id (approvers, admins) → `{rule, decidedItemIds}` with the new settings (applied to waiting permissions); 400 `invalid_body`, 404. */
export const PUT = withViewer("approver", async (request, _viewer, ctx: Ctx) => {
  const id = await ruleIdOf(ctx);
  if (id instanceof Response) return id;
  const input = await parseJsonBody(request, inboxRuleInput);
  if (input instanceof Response) return input;
  return json(await changeInboxRule(pool(), id, input));
});

/** DELETE /api/inbox/rules/:id (approvers, admins) → 204; the audit keeps the rule's text; 404 when unknown. */
export const DELETE = withViewer("approver", async (_request, _viewer, ctx: Ctx) => {
  const id = await ruleIdOf(ctx);
  if (id instanceof Response) return id;
  await deleteInboxRule(pool(), id);
  return new Response(null, { status: 204 });
});
