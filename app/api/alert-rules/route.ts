import {
  createAlertRuleRoute,
  listAlertRulesRoute,
  type AlertRuleResponse,
  type ListAlertRulesResponse,
} from "@/lib/api/alerts";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { createAlertRule, listAlertRules } from "@/lib/server/repositories/alert-rules";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/alert-rules → `{ rules }`: every alert rule by name with the runs it fires on now. */
export const GET = apiRoute("viewer", listAlertRulesRoute, async () => {
  const answer: ListAlertRulesResponse = { rules: await listAlertRules(prisma()) };
  return json(answer);
});

/** POST /api/alert-rules (approvers) → 201 the new rule; 400 `invalid_body` (see lib/alerts/rule.ts). */
export const POST = apiRoute(
  "approver",
  createAlertRuleRoute,
  async ({ body }, _request, viewer) => {
    const rule: AlertRuleResponse = await createAlertRule(
      prisma(),
      body,
      viewer.email ?? viewer.name,
    );
    return json(rule, 201);
  },
);
