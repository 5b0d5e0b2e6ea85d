import { apiPath, fetchJson, sendJson, withRange } from "@/lib/api/client";
import type { StepRange } from "@/lib/api/query-keys";
import {
  getRunRoute,
  patchRunRoute,
  runArtifactsRoute,
  runExportSummaryRoute,
  runMetricsRoute,
  runProgressRoute,
  runServingRoute,
  type ListRunsResponse,
  type RunArtifactsResponse,
  type RunExportSummaryResponse,
  type RunListQuery,
  type RunMetricsResponse,
  type RunPatch,
  type RunProgressResponse,
  type RunResponse,
  type RunServingResponse,
} from "@/lib/api/runs";
import { apiRunsPath } from "@/lib/paths";

/**
 * The browser's typed reads and writes of runs: the list, one run, its progress, metrics,
 * artifacts, exports and serving telemetry, built from the contracts of lib/api/runs.ts (keys:
 * lib/api/query-keys.ts). Every function throws ApiError for a non-2xx answer and TypeError when
 * the network fails.
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
