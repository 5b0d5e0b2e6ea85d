import {
  createInboxRuleRoute,
  listInboxRulesRoute,
  type ListInboxRulesResponse,
} from "@/lib/api/inbox";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { createInboxRule, listInboxRules } from "@/lib/server/repositories/inbox-rules";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/inbox/rules → `{ rules }`: every allow/deny rule, oldest first, with how often it decided. */
export const GET = apiRoute("viewer", listInboxRulesRoute, async () => {
  const answer: ListInboxRulesResponse = { rules: await listInboxRules(pool()) };
  return json(answer);
});

/**
 * POST /api/inbox/rules `{effect, agent?, project?, tool, pattern, message?}` (approvers, admins)
 * → 201 `{rule, decidedItemIds}`: the rule, also applied at once to the permissions already
 * waiting (their ids). 400 `invalid_body`.
 */
export const POST = apiRoute("approver", createInboxRuleRoute, async ({ body }, _request, viewer) =>
  json(await createInboxRule(pool(), body, viewer.name), 201),
);
