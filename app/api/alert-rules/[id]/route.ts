import {
  deleteAlertRuleRoute,
  updateAlertRuleRoute,
  type AlertRuleResponse,
} from "@/lib/api/alerts";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { deleteAlertRule, updateAlertRule } from "@/lib/server/repositories/alert-rules";
import { apiRoute } from "@/lib/server/route-input";

/** PUT /api/alert-rules/:id (approvers) → the rule with the new settings; 400 `invalid_body`, 404. */
export const PUT = apiRoute(
  "approver",
  updateAlertRuleRoute,
  async ({ params, body }, _request, viewer) => {
    const rule: AlertRuleResponse = await updateAlertRule(
      prisma(),
      params.id,
      body,
      viewer.email ?? viewer.name,
    );
    return json(rule);
  },
);

/** DELETE /api/alert-rules/:id (approvers) → 204; its alerts leave the runs; 404 when unknown. */
export const DELETE = apiRoute("approver", deleteAlertRuleRoute, async ({ params }) => {
  await deleteAlertRule(prisma(), params.id);
  return new Response(null, { status: 204 });
});
