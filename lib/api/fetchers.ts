import type { z } from "zod";

import type { alertRuleInput } from "@/lib/alerts/rule";
import { apiRunsPath } from "@/lib/paths";
import type { PreferencesPatch } from "@/lib/preferences";
import type { DraftSettings } from "@/lib/view-models/evals";
import type { PlanItemView } from "@/lib/view-models/plans";

import {
  createAlertRuleRoute,
  deleteAlertRuleRoute,
  listAlertRulesRoute,
  updateAlertRuleRoute,
  type AlertRuleResponse,
  type ListAlertRulesResponse,
} from "./alerts";
import {
  createBaselineRoute,
  deleteBaselineRoute,
  listBaselinesRoute,
  patchBaselineRoute,
  type BaselineResponse,
  type ListBaselinesResponse,
} from "./baselines";
import {
  checkpointLineageRoute,
  listCheckpointsRoute,
  type CheckpointLineageResponse,
  type ListCheckpointsResponse,
} from "./checkpoints";
import { apiPath, fetchJson, sendJson } from "./client";
import { evalOverviewRoute, type EvalOverviewQuery, type EvalOverviewResponse } from "./evals";
import {
  getHostRoute,
  hostServingRoute,
  listHostsRoute,
  type HostResponse,
  type HostServingResponse,
  type ListHostsResponse,
} from "./hosts";
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
} from "./inbox";
import { overviewRoute, type OverviewResponse } from "./overview";
import {
  decidePlanRoute,
  getPlanRoute,
  listPlansRoute,
  WAITING_LIMIT,
  type DecidePlanResponse,
  type decisionInput,
  type ListPlansResponse,
  type PlanResponse,
} from "./plans";
import { putPreferencesRoute, type PreferencesResponse } from "./preferences";
import {
  pushKeyRoute,
  subscribePushRoute,
  unsubscribePushRoute,
  type PushKeyResponse,
  type PushSubscriptionInput,
  type SubscribePushResponse,
  type UnsubscribePushResponse,
} from "./push";
import type { StepRange } from "./query-keys";
import {
  getRunRoute,
  patchRunRoute,
  runArtifactsRoute,
  runEvalsRoute,
  runExportSummaryRoute,
  runMetricsRoute,
  runProgressRoute,
  runServingRoute,
  type ListRunsResponse,
  type RunArtifactsResponse,
  type RunEvalsResponse,
  type RunExportSummaryResponse,
  type RunListQuery,
  type RunMetricsResponse,
  type RunPatch,
  type RunProgressResponse,
  type RunResponse,
  type RunServingResponse,
} from "./runs";
import { searchRoute, type SearchResponse } from "./search";
import {
  getSessionRoute,
  listSessionsRoute,
  type ListSessionsResponse,
  type SessionResponse,
} from "./sessions";
import {
  createSavedViewRoute,
  deleteSavedViewRoute,
  listSavedViewsRoute,
  patchSavedViewRoute,
  type ListSavedViewsResponse,
  type SavedViewResponse,
} from "./views";

/**
 * The browser's typed reads and writes of the API, one function per use, each built from its
 * route's contract (lib/api/<resource>.ts): URL from the contract's route, answer typed by its
 * `…Response`, request bodies by its schema's input. Keys: lib/api/query-keys.ts.
 * Every function throws ApiError for a non-2xx answer and TypeError when the network fails.
 */

/** One page of runs (`GET /api/runs`, the list's filters in URL order). */
export function fetchRuns(q: RunListQuery, signal?: AbortSignal): Promise<ListRunsResponse> {
  return fetchJson<ListRunsResponse>(apiRunsPath(q), { signal });
}

/** One run with its points (`GET /api/runs/:id`). @throws ApiError 404 when it does not exist. */
export function fetchRun(id: number, signal?: AbortSignal): Promise<RunResponse> {
  return fetchJson<RunResponse>(apiPath(getRunRoute, { id }), { signal });
}

/**
 * Edits or archives a run (`PATCH /api/runs/:id`; approvers and admins).
 * @throws ApiError 403 without the approver role, 400 `invalid_body`, 404 unknown run.
 */
export function patchRun(id: number, patch: RunPatch): Promise<RunResponse> {
  return sendJson<RunResponse>("PATCH", apiPath(patchRunRoute, { id }), patch);
}

/** One run's progress view (`GET /api/runs/:id/progress`). @throws ApiError (404 when the run is gone). */
export function fetchRunProgress(
  runId: number,
  signal?: AbortSignal,
): Promise<RunProgressResponse> {
  return fetchJson<RunProgressResponse>(apiPath(runProgressRoute, { id: runId }), { signal });
}

/** One run's metric series (`GET /api/runs/:id/metrics`). @throws ApiError (404 when the run is gone). */
export function fetchRunMetrics(runId: number, signal?: AbortSignal): Promise<RunMetricsResponse> {
  return fetchJson<RunMetricsResponse>(apiPath(runMetricsRoute, { id: runId }), { signal });
}

/**
 * One run's metric series inside `range` (`GET /api/runs/:id/metrics?fromStep&toStep`): raw when
 * they fit the point budget. @throws ApiError (404 run gone, 400 a bad range).
 */
export function fetchRunMetricsRange(
  runId: number,
  range: StepRange,
  signal?: AbortSignal,
): Promise<RunMetricsResponse> {
  const query = { fromStep: Math.floor(range.fromStep), toStep: Math.ceil(range.toStep) };
  return fetchJson<RunMetricsResponse>(apiPath(runMetricsRoute, { id: runId }, query), { signal });
}

/** A page of a run's artifacts, newest first, with the run's total (`GET /api/runs/:id/artifacts`). @throws ApiError (404 run gone). */
export function fetchArtifactPage(
  runId: number,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<RunArtifactsResponse> {
  return fetchJson<RunArtifactsResponse>(
    apiPath(runArtifactsRoute, { id: runId }, { offset, limit }),
    { signal },
  );
}

/** The rows each export of a run would hold (`GET /api/runs/:id/export/summary`). @throws ApiError. */
export function fetchRunExportSummary(
  runId: number,
  signal?: AbortSignal,
): Promise<RunExportSummaryResponse> {
  return fetchJson<RunExportSummaryResponse>(apiPath(runExportSummaryRoute, { id: runId }), {
    signal,
  });
}

/** The overview with the active runs from `offset` on (the server's page size; `GET /api/overview`). @throws ApiError. */
export function fetchOverview(signal?: AbortSignal, offset = 0): Promise<OverviewResponse> {
  return fetchJson<OverviewResponse>(
    apiPath(overviewRoute, {}, { offset: offset > 0 ? offset : undefined }),
    { signal },
  );
}

/** Plans, pending first (`GET /api/plans`, optionally one session's). @throws ApiError. */
export function fetchPlans(
  opts: { session?: number; signal?: AbortSignal } = {},
): Promise<ListPlansResponse> {
  return fetchJson<ListPlansResponse>(apiPath(listPlansRoute, {}, { session: opts.session }), {
    signal: opts.signal,
  });
}

/** The plans about run `runId`, pending first (`GET /api/plans?run=…&limit=100`). @throws ApiError. */
export function fetchRunPlans(runId: number, signal?: AbortSignal): Promise<ListPlansResponse> {
  return fetchJson<ListPlansResponse>(apiPath(listPlansRoute, {}, { run: runId, limit: 100 }), {
    signal,
  });
}

/** The first WAITING_LIMIT plans, pending first (`GET /api/plans?limit=20`): the overview's card. @throws ApiError. */
export function fetchWaitingPlans(signal?: AbortSignal): Promise<ListPlansResponse> {
  return fetchJson<ListPlansResponse>(apiPath(listPlansRoute, {}, { limit: WAITING_LIMIT }), {
    signal,
  });
}

/** How many plans wait for a decision (`GET /api/plans?limit=0`). @throws ApiError. */
export async function fetchPendingPlanCount(signal?: AbortSignal): Promise<number> {
  const list = await fetchJson<ListPlansResponse>(apiPath(listPlansRoute, {}, { limit: 0 }), {
    signal,
  });
  return list.pendingCount;
}

/** One plan (`GET /api/plans/by-id/:id`). @throws ApiError (404 when unknown). */
export function fetchPlan(id: number, signal?: AbortSignal): Promise<PlanResponse> {
  return fetchJson<PlanResponse>(apiPath(getPlanRoute, { id }), { signal });
}

/** What a person sends to decide a plan (the contract's body). */
export type DecisionRequest = z.input<typeof decisionInput>;

/** Items as the decision API takes them (no null priority). */
export function decisionItems(
  items: readonly PlanItemView[],
): NonNullable<DecisionRequest["items"]> {
  return items.map((i) =>
    i.priority ? { content: i.content, priority: i.priority } : { content: i.content },
  );
}

/**
 * Records a decision (`POST /api/plans/by-id/:id/decision`).
 * @throws ApiError: 409 `conflict` when someone decided first (the message says who), 403 without
 *   the approver role, 400 for an invalid body; TypeError when the network fails.
 */
export async function postDecision(id: number, body: DecisionRequest): Promise<void> {
  await sendJson<DecidePlanResponse>("POST", apiPath(decidePlanRoute, { id }), body);
}

/** The session list (`GET /api/sessions`). @throws ApiError. */
export function fetchSessions(signal?: AbortSignal): Promise<ListSessionsResponse> {
  return fetchJson<ListSessionsResponse>(apiPath(listSessionsRoute), { signal });
}

/** One session (`GET /api/sessions/:id`). @throws ApiError (404 when unknown). */
export function fetchSession(id: number, signal?: AbortSignal): Promise<SessionResponse> {
  return fetchJson<SessionResponse>(apiPath(getSessionRoute, { id }), { signal });
}

/** The host list (`GET /api/hosts`). @throws ApiError. */
export function fetchHosts(signal?: AbortSignal): Promise<ListHostsResponse> {
  return fetchJson<ListHostsResponse>(apiPath(listHostsRoute), { signal });
}

/** One host (`GET /api/hosts/:name?<rangeSearch>`, the page's time-range parameters as they are). @throws ApiError (404 when unknown). */
export function fetchHost(
  name: string,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<HostResponse> {
  const path = apiPath(getHostRoute, { name });
  return fetchJson<HostResponse>(rangeSearch ? `${path}?${rangeSearch}` : path, { signal });
}

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

/** The server's VAPID public key (`GET /api/push/key`), base64url. */
export async function fetchPushKey(): Promise<string> {
  return (await fetchJson<PushKeyResponse>(apiPath(pushKeyRoute))).publicKey;
}

/** Stores this browser's push subscription (`POST /api/push/subscriptions`; approvers). @throws ApiError 403 for viewers. */
export function subscribePush(subscription: PushSubscriptionInput): Promise<SubscribePushResponse> {
  return sendJson<SubscribePushResponse>("POST", apiPath(subscribePushRoute), subscription);
}

/** Forgets this browser's push subscription (`DELETE /api/push/subscriptions`). */
export function unsubscribePush(endpoint: string): Promise<UnsubscribePushResponse> {
  return sendJson<UnsubscribePushResponse>("DELETE", apiPath(unsubscribePushRoute), { endpoint });
}

/** The inbox's decision history, newest first (`GET /api/inbox/audit`; approvers). @throws ApiError 403 for viewers. */
export async function fetchInboxAudit(
  signal?: AbortSignal,
): Promise<InboxAuditResponse["entries"]> {
  return (await fetchJson<InboxAuditResponse>(apiPath(inboxAuditRoute), { signal })).entries;
}

/** Runs, sessions, plans, hosts and checkpoints matching `q` (`GET /api/search`). @throws ApiError 400 for an empty `q`. */
export function fetchSearch(q: string, signal?: AbortSignal): Promise<SearchResponse> {
  return fetchJson<SearchResponse>(apiPath(searchRoute, {}, { q }), { signal });
}

/** `path` with a page's time-range parameters (`range=6h` or `from&to`, as the URL has them). */
function withRange(path: string, rangeSearch: string): string {
  return rangeSearch ? `${path}?${rangeSearch}` : path;
}

/** A host's serving panel (`GET /api/hosts/:name/serving?<rangeSearch>`). @throws ApiError (400 bad range, 404 when the host is unknown). */
export function fetchHostServing(
  name: string,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<HostServingResponse> {
  return fetchJson<HostServingResponse>(
    withRange(apiPath(hostServingRoute, { name }), rangeSearch),
    { signal },
  );
}

/** A run's server telemetry (`GET /api/runs/:id/serving?<rangeSearch>`). @throws ApiError (400 bad range, 404 when the run is gone). */
export function fetchRunServing(
  runId: number,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<RunServingResponse> {
  return fetchJson<RunServingResponse>(
    withRange(apiPath(runServingRoute, { id: runId }), rangeSearch),
    { signal },
  );
}

/** The checkpoint list, newest first (`GET /api/checkpoints?limit`). @throws ApiError. */
export function fetchCheckpoints(
  limit: number,
  signal?: AbortSignal,
): Promise<ListCheckpointsResponse> {
  return fetchJson<ListCheckpointsResponse>(apiPath(listCheckpointsRoute, {}, { limit }), {
    signal,
  });
}

/** One checkpoint's lineage (`GET /api/checkpoints/lineage?uri`). @throws ApiError. */
export function fetchCheckpointLineage(
  uri: string,
  signal?: AbortSignal,
): Promise<CheckpointLineageResponse> {
  return fetchJson<CheckpointLineageResponse>(apiPath(checkpointLineageRoute, {}, { uri }), {
    signal,
  });
}

/** τ by checkpoint across runs (`GET /api/evals?category&dataset`). @throws ApiError. */
export function fetchEvalOverview(
  filters: EvalOverviewQuery,
  signal?: AbortSignal,
): Promise<EvalOverviewResponse> {
  const query = { category: filters.category, dataset: filters.dataset };
  return fetchJson<EvalOverviewResponse>(apiPath(evalOverviewRoute, {}, query), { signal });
}

/** One run's evals (`GET /api/runs/:id/evals`), for one draft-settings key or the default. @throws ApiError (404 unknown run). */
export function fetchRunEvals(
  runId: number,
  draft: string | null,
  signal?: AbortSignal,
): Promise<RunEvalsResponse> {
  return fetchJson<RunEvalsResponse>(apiPath(runEvalsRoute, { id: runId }, { draft }), {
    signal,
  });
}

/** Every baseline (`GET /api/baselines`). @throws ApiError. */
export function fetchBaselines(signal?: AbortSignal): Promise<ListBaselinesResponse> {
  return fetchJson<ListBaselinesResponse>(apiPath(listBaselinesRoute), { signal });
}

/** What the baseline form sends (the `baseline.upsert` frame's fields; null: none). */
export interface BaselineBody {
  name: string;
  metric: string;
  value: number;
  tolerance?: number | null;
  dataset?: string | null;
  settings?: DraftSettings;
  sourceUrl?: string | null;
}

/** Creates a baseline (`POST /api/baselines`). @throws ApiError: 409 `baseline_exists`, 403 without the approver role, 400 bad body. */
export function createBaseline(body: BaselineBody): Promise<BaselineResponse> {
  const { tolerance, dataset, sourceUrl, ...rest } = body;
  // POST takes absent optional fields, never null.
  const payload = {
    ...rest,
    ...(tolerance != null ? { tolerance } : {}),
    ...(dataset ? { dataset } : {}),
    ...(sourceUrl ? { sourceUrl } : {}),
  };
  return sendJson<BaselineResponse>("POST", apiPath(createBaselineRoute), payload);
}

/** Changes a baseline (`PATCH /api/baselines/:id`; null clears tolerance, dataset, sourceUrl). @throws ApiError: 409 `baseline_exists`, 404, 403, 400. */
export function updateBaseline(id: number, body: Partial<BaselineBody>): Promise<BaselineResponse> {
  return sendJson<BaselineResponse>("PATCH", apiPath(patchBaselineRoute, { id }), body);
}

/** Deletes a baseline (`DELETE /api/baselines/:id`). @throws ApiError: 404, 403. */
export async function deleteBaseline(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteBaselineRoute, { id }));
}

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

/** The signed-in person's saved views of `page` (`GET /api/views`). @throws ApiError 403 for a worker token. */
export async function fetchSavedViews(
  page: "runs",
  signal?: AbortSignal,
): Promise<ListSavedViewsResponse["views"]> {
  const path = apiPath(listSavedViewsRoute, {}, { page });
  return (await fetchJson<ListSavedViewsResponse>(path, { signal })).views;
}

/** Saves the current query under `name` (`POST /api/views`). @throws ApiError 409 `conflict` when the name is taken, 400 `invalid_body`. */
export function createSavedView(
  page: "runs",
  name: string,
  query: string,
): Promise<SavedViewResponse> {
  return sendJson<SavedViewResponse>("POST", apiPath(createSavedViewRoute), { page, name, query });
}

/** Renames a view or replaces its query (`PATCH /api/views/:id`). @throws ApiError 404, 409, 400. */
export function updateSavedView(
  id: number,
  patch: { name?: string; query?: string },
): Promise<SavedViewResponse> {
  return sendJson<SavedViewResponse>("PATCH", apiPath(patchSavedViewRoute, { id }), patch);
}

/** Deletes a view (`DELETE /api/views/:id`). @throws ApiError 404 when it is not the person's. */
export async function deleteSavedView(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteSavedViewRoute, { id }));
}

/** Stores the signed-in person's display choices (`PUT /api/me/preferences`) → what was stored. @throws ApiError 400 `invalid_body`, 403 for a worker token. */
export function putPreferences(patch: PreferencesPatch): Promise<PreferencesResponse> {
  return sendJson<PreferencesResponse>("PUT", apiPath(putPreferencesRoute), patch);
}
