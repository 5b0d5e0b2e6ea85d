import { fetchJson, sendJson } from "@/lib/api-client";
import type { PlanDetailView, PlanItemView, PlanListView } from "@/lib/view-models/plans";

/**
 * react-query keys, fetchers and paths of plans. The keys follow lib/query-keys.ts's one rule, so
 * `useLiveTopics` alone keeps them live: topic `plans` (any plan proposed, decided or expired) →
 * ["plans", …] (lists and the pending count), `plan:<id>` → ["plan", id].
 */

/** Key of a plan list (all plans, or one session's). */
export const plansQueryKey = (session?: number) => ["plans", "list", session ?? null] as const;
/** Key of the plans the overview shows as waiting (the first WAITING_LIMIT plans, pending first). */
export const waitingPlansQueryKey = ["plans", "waiting"] as const;
/** How many plans the overview's "waiting for a person" card reads (pending ones come first). */
export const WAITING_LIMIT = 20;
/** Key of the pending count (the navigation badge). */
export const pendingPlansQueryKey = ["plans", "pending"] as const;
/** Key of one plan's page. */
export const planQueryKey = (id: number) => ["plan", id] as const;
/** Prefix of every plan list and count. */
export const allPlansQueryKey = ["plans"] as const;

/** Live topic of one plan. */
export const planTopic = (id: number): string => `plan:${id}`;

/** `/plans/:id`. */
export function planPath(id: number): string {
  return `/plans/${id}`;
}

/** Plans, pending first (`GET /api/plans`, optionally one session's). @throws ApiError. */
export function fetchPlans(
  opts: { session?: number; signal?: AbortSignal } = {},
): Promise<PlanListView> {
  return fetchJson<PlanListView>(
    opts.session !== undefined ? `/api/plans?session=${opts.session}` : "/api/plans",
    { signal: opts.signal },
  );
}

/** Key of the plans about one run (its chart annotations). */
export const runPlansQueryKey = (runId: number) => ["plans", "run", runId] as const;

/** The plans about run `runId`, pending first (`GET /api/plans?run=…&limit=100`). @throws ApiError. */
export function fetchRunPlans(runId: number, signal?: AbortSignal): Promise<PlanListView> {
  return fetchJson<PlanListView>(`/api/plans?run=${runId}&limit=100`, { signal });
}

/** The first WAITING_LIMIT plans, pending first (`GET /api/plans?limit=20`): the overview's card. @throws ApiError. */
export function fetchWaitingPlans(signal?: AbortSignal): Promise<PlanListView> {
  return fetchJson<PlanListView>(`/api/plans?limit=${WAITING_LIMIT}`, { signal });
}

/** How many plans wait for a decision (`GET /api/plans?limit=0`). @throws ApiError. */
export async function fetchPendingPlanCount(signal?: AbortSignal): Promise<number> {
  return (await fetchJson<PlanListView>("/api/plans?limit=0", { signal })).pendingCount;
}

/** One plan (`GET /api/plans/by-id/:id`). @throws ApiError (404 when unknown). */
export function fetchPlan(id: number, signal?: AbortSignal): Promise<PlanDetailView> {
  return fetchJson<PlanDetailView>(`/api/plans/by-id/${id}`, { signal });
}

/** What a person sends to decide a plan. */
export interface DecisionRequest {
  decision: "approved" | "changes_requested" | "rejected";
  items?: Array<{ content: string; priority?: "high" | "medium" | "low" }>;
  comment?: string;
}

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
  await sendJson<unknown>("POST", `/api/plans/by-id/${id}/decision`, body);
}
