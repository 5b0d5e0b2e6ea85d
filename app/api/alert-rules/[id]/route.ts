import { alertRuleInput } from "@/lib/alerts/rule";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { deleteAlertRule, updateAlertRule } from "@/lib/server/repositories/alert-rules";

type Ctx = { params: Promise<{ id: string }> };

async function ruleIdOf(ctx: Ctx): Promise<number | Response> {
  const id = Number((await ctx.params).id);
  if (!Number.isSafeInteger(id) || id <= 0)
    return errorResponse(400, "invalid_query", "rule id must be a positive integer");
  return id;
}

/** PUT /api/alert-rules/:id (approvers) → the rule with the new settings; 400 `invalid_body`, 404. */
export const PUT = withViewer("approver", async (request, viewer, ctx: Ctx) => {
  const id = await ruleIdOf(ctx);
  if (id instanceof Response) return id;
  const input = await parseJsonBody(request, alertRuleInput);
  if (input instanceof Response) return input;
  return json(await updateAlertRule(prisma(), id, input, viewer.email ?? viewer.name));
});

/** DELETE /api/alert-rules/:id (approvers) → 204; its alerts leave the runs; 404 when unknown. */
export const DELETE = withViewer("approver", async (_request, _viewer, ctx: Ctx) => {
  const id = await ruleIdOf(ctx);
  if (id instanceof Response) return id;
  await deleteAlertRule(prisma(), id);
  return new Response(null, { status: 204 });
});
