import { inboxRuleInput } from "@/lib/inbox/rules";
import { pool } from "@/lib/server/db";
import { json, parseJsonBody, withViewer } from "@/lib/server/http";
import { createInboxRule, listInboxRules } from "@/lib/server/repositories/inbox-rules";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/inbox/rules → `{ rules }`: every allow/deny rule, oldest first, with how often it decided. */
export const GET = withViewer("viewer", async () => json({ rules: await listInboxRules(pool()) }));

/**
 * POST /api/inbox/rules `{effect, agent?, project?, tool, pattern, message?}` (approvers, admins)
 * → 201 `{rule, decidedItemIds}`: the rule, also applied at once to the permissions already
 * waiting (their ids). 400 `invalid_body`.
 */
export const POST = withViewer("approver", async (request, viewer) => {
  const input = await parseJsonBody(request, inboxRuleInput);
  if (input instanceof Response) return input;
  return json(await createInboxRule(pool(), input, viewer.name), 201);
});
