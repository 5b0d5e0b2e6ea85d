import { alertRuleInput } from "@/lib/alerts/rule";
import type { AlertRuleView } from "@/lib/view-models/alerts";

import { defineRoute, idParams } from "./contract";

/** Contracts of the alert-rule routes (`/api/alert-rules…`); the rule's body: lib/alerts/rule.ts. */

/** Path parameters of `/api/alert-rules/:id` (400 "rule id must be a positive integer"). */
export const alertRuleIdParams = idParams("rule");

/** `GET /api/alert-rules` → `{rules}`: every alert rule with the runs it fires on now. */
export const listAlertRulesRoute = defineRoute({ route: "GET /api/alert-rules" });
/** Answer of {@link listAlertRulesRoute}. */
export interface ListAlertRulesResponse {
  rules: AlertRuleView[];
}

/** `POST /api/alert-rules` (approvers) → 201 the new rule. */
export const createAlertRuleRoute = defineRoute({
  route: "POST /api/alert-rules",
  body: alertRuleInput,
});
/** Answer of {@link createAlertRuleRoute} and {@link updateAlertRuleRoute}. */
export type AlertRuleResponse = AlertRuleView;

/** `PUT /api/alert-rules/:id` (approvers) → the rule with the new settings. */
export const updateAlertRuleRoute = defineRoute({
  route: "PUT /api/alert-rules/:id",
  params: alertRuleIdParams,
  body: alertRuleInput,
});

/** `DELETE /api/alert-rules/:id` (approvers) → 204. */
export const deleteAlertRuleRoute = defineRoute({
  route: "DELETE /api/alert-rules/:id",
  params: alertRuleIdParams,
});
