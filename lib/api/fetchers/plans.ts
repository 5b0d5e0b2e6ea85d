import type { z } from "zod";

import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import {
  decidePlanRoute,
  getPlanRoute,
  listPlansRoute,
  WAITING_LIMIT,
  type DecidePlanResponse,
  type decisionInput,
  type ListPlansResponse,
  type PlanResponse,
} from "@/lib/api/plans";
import type { PlanItemView } from "@/lib/view-models/plans";

/**
 * The browser's typed reads and writes of plans: lists, one plan, and a decision on it, built from
 * the contracts of lib/api/plans.ts (keys: lib/api/query-keys.ts). Every function throws ApiError
 * for a non-2xx answer and TypeError when the network fails.
 */

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
