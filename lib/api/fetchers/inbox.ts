import type { z } from "zod";

import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import {
  createInboxRuleRoute,
  decideInboxRoute,
  deleteInboxRuleRoute,
  inboxAuditRoute,
  listInboxRoute,
  listInboxRulesRoute,
  type DecideInboxResponse,
  type InboxAuditResponse,
  type inboxDecisionInput,
  type ListInboxResponse,
  type ListInboxRulesResponse,
} from "@/lib/api/inbox";

/**
 * The browser's typed reads and writes of the inbox: waiting entries, decisions, the audit and the
 * allow/deny rules, built from the contracts of lib/api/inbox.ts (keys: lib/api/query-keys.ts).
 * Every function throws ApiError for a non-2xx answer and TypeError when the network fails.
 */

/** The waiting entries (`GET /api/inbox`). @throws ApiError. */
export function fetchInbox(signal?: AbortSignal): Promise<ListInboxResponse> {
  return fetchJson<ListInboxResponse>(apiPath(listInboxRoute), { signal });
}

/** A person's decision on an inbox entry (the contract's body). */
export type InboxDecisionRequest = z.input<typeof inboxDecisionInput>;

/** Sends a decision (`POST /api/inbox/:id/decision`; `id` "12" or "plan-7"). @throws ApiError (409 when decided by someone else or the agent stopped waiting). */
export function decideInbox(id: string, body: InboxDecisionRequest): Promise<DecideInboxResponse> {
  return sendJson<DecideInboxResponse>("POST", apiPath(decideInboxRoute, { id }), body);
}

/** The inbox's decision history, newest first (`GET /api/inbox/audit`; approvers). @throws ApiError 403 for viewers. */
export async function fetchInboxAudit(
  signal?: AbortSignal,
): Promise<InboxAuditResponse["entries"]> {
  return (await fetchJson<InboxAuditResponse>(apiPath(inboxAuditRoute), { signal })).entries;
}

/** Every inbox allow/deny rule (`GET /api/inbox/rules`). @throws ApiError. */
export async function fetchInboxRules(
  signal?: AbortSignal,
): Promise<ListInboxRulesResponse["rules"]> {
  return (await fetchJson<ListInboxRulesResponse>(apiPath(listInboxRulesRoute), { signal })).rules;
}

/**
 * Creates an inbox rule (`POST /api/inbox/rules`; approvers), applied at once to the permissions
 * waiting. The body is checked by the route (400 `invalid_body` naming the field).
 * @throws ApiError 400, 403.
 */
export async function createInboxRule(body: Record<string, string | null>): Promise<void> {
  await sendJson<unknown>("POST", apiPath(createInboxRuleRoute), body);
}

/** Deletes an inbox rule (`DELETE /api/inbox/rules/:id`; approvers). @throws ApiError 403, 404. */
export async function deleteInboxRule(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteInboxRuleRoute, { id }));
}
