import type { z } from "zod";

import type { alertRuleInput } from "@/lib/alerts/rule";
import {
  createAlertRuleRoute,
  deleteAlertRuleRoute,
  listAlertRulesRoute,
  updateAlertRuleRoute,
  type AlertRuleResponse,
  type ListAlertRulesResponse,
} from "@/lib/api/alerts";
import { apiPath, fetchJson, sendJson } from "@/lib/api/client";

/**
 * The browser's typed reads and writes of alert rules, built from the contracts of
 * lib/api/alerts.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx
 * answer and TypeError when the network fails.
 */

/** An alert rule as a form sends it: the contract's body, `kind` as the select's text (the route checks it: 400). */
export type AlertRuleBody = Omit<z.input<typeof alertRuleInput>, "kind"> & { kind: string };

/** Every alert rule with the runs it fires on now (`GET /api/alert-rules`). @throws ApiError. */
export async function fetchAlertRules(
  signal?: AbortSignal,
): Promise<ListAlertRulesResponse["rules"]> {
  return (await fetchJson<ListAlertRulesResponse>(apiPath(listAlertRulesRoute), { signal })).rules;
}

/** Creates an alert rule (`POST /api/alert-rules`; approvers). @throws ApiError 400 `invalid_body`, 403. */
export function createAlertRule(body: AlertRuleBody): Promise<AlertRuleResponse> {
  return sendJson<AlertRuleResponse>("POST", apiPath(createAlertRuleRoute), body);
}

/** Replaces an alert rule's settings (`PUT /api/alert-rules/:id`; approvers). @throws ApiError 400, 403, 404. */
export function updateAlertRule(id: number, body: AlertRuleBody): Promise<AlertRuleResponse> {
  return sendJson<AlertRuleResponse>("PUT", apiPath(updateAlertRuleRoute, { id }), body);
}

/** Deletes an alert rule (`DELETE /api/alert-rules/:id`; approvers). @throws ApiError 403, 404. */
export async function deleteAlertRule(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteAlertRuleRoute, { id }));
}
