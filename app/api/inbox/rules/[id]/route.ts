import { changeInboxRuleRoute, deleteInboxRuleRoute } from "@/lib/api/inbox";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { changeInboxRule, deleteInboxRule } from "@/lib/server/repositories/inbox-rules";
import { apiRoute } from "@/lib/server/route-input";

/** PUT /api/inbox/rules/:id (approvers, admins) → `{rule, decidedItemIds}` with the new settings (applied to waiting permissions); 400 `invalid_body`, 404. */
export const PUT = apiRoute("approver", changeInboxRuleRoute, async ({ params, body }) =>
  json(await changeInboxRule(pool(), params.id, body)),
);

/** DELETE /api/inbox/rules/:id (approvers, admins) → 204; the audit keeps the rule's text; 404 when unknown. */
export const DELETE = apiRoute("approver", deleteInboxRuleRoute, async ({ params }) => {
  await deleteInboxRule(pool(), params.id);
  return new Response(null, { status: 204 });
});
