import { alertRuleInput } from "@/lib/alerts/rule";
import { prisma } from "@/lib/server/db";
import { json, parseJsonBody, withViewer } from "@/lib/server/http";
import { createAlertRule, listAlertRules } from "@/lib/server/repositories/alert-rules";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/alert-rules → `{ rules }`: every alert rule by name with the runs it fires on now. */
export const GET = withViewer("viewer", async () =>
  json({ rules: await listAlertRules(prisma()) }),
);

/** POST /api/alert-rules (approvers) → 201 the new rule; 400 `invalid_body` (see lib/alerts/rule.ts). */
export const POST = withViewer("approver", async (request, viewer) => {
  const input = await parseJsonBody(request, alertRuleInput);
  if (input instanceof Response) return input;
  return json(await createAlertRule(prisma(), input, viewer.email ?? viewer.name), 201);
});
