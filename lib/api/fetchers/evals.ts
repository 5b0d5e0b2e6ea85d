import { apiPath, fetchJson } from "@/lib/api/client";
import {
  evalOverviewRoute,
  type EvalOverviewQuery,
  type EvalOverviewResponse,
} from "@/lib/api/evals";
import { runEvalsRoute, type RunEvalsResponse } from "@/lib/api/runs";

/**
 * The browser's typed reads and writes of evals: τ by checkpoint and one run's evals, built from
 * the contracts of lib/api/evals.ts (keys: lib/api/query-keys.ts). Every function throws ApiError
 * for a non-2xx answer and TypeError when the network fails.
 */

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
