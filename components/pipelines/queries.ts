import { fetchJson } from "@/lib/api-client";
import type { RunMetricsView } from "@/lib/view-models/metrics";
import type { OverviewView } from "@/lib/view-models/overview";
import type { ArtifactView, RunProgressView } from "@/lib/view-models/pipeline";

/**
 * react-query keys and fetchers of the pipeline, training and overview reads. The overview key
 * starts with "runs", which the `runs` topic already invalidates (lib/query-keys.ts). A run's
 * progress and metrics are heavier reads: their keys are outside ["run", id] so that the run page
 * refreshes them throttled (useLiveInvalidate with minIntervalMs), not on every push.
 */

/** Key of a run's progress view. */
export const progressQueryKey = (runId: number) => ["run-progress", runId] as const;
/** Key of a run's metric series. */
export const metricsQueryKey = (runId: number) => ["run-metrics", runId] as const;
/** Key of the overview (under "runs": every run change refreshes it). */
export const overviewQueryKey = ["runs", "overview"] as const;

/** `GET /api/runs/:id/progress`. */
export function apiRunProgressPath(runId: number): string {
  return `/api/runs/${runId}/progress`;
}

/** `GET /api/runs/:id/metrics`. */
export function apiRunMetricsPath(runId: number): string {
  return `/api/runs/${runId}/metrics`;
}

/** One run's progress view. @throws ApiError (404 when the run is gone). */
export function fetchRunProgress(runId: number, signal?: AbortSignal): Promise<RunProgressView> {
  return fetchJson<RunProgressView>(apiRunProgressPath(runId), { signal });
}

/** A step range of a zoomed metric chart: integer steps, both ends inclusive. */
export interface StepRange {
  fromStep: number;
  toStep: number;
}

/**
 * Key of a run's metric series in a step range (a zoomed chart). Outside `metricsQueryKey`: the
 * live push fills that one with the whole run, never a range.
 */
export const metricsRangeQueryKey = (runId: number, range: StepRange) =>
  ["run-metrics-range", runId, range.fromStep, range.toStep] as const;

/** `GET /api/runs/:id/metrics?fromStep=…&toStep=…` (docs/api.md): the series inside the range, raw when they fit the point budget. */
export function apiRunMetricsRangePath(runId: number, range: StepRange): string {
  return `${apiRunMetricsPath(runId)}?fromStep=${Math.floor(range.fromStep)}&toStep=${Math.ceil(range.toStep)}`;
}

/** One run's metric series in `range`. @throws ApiError (404 run gone, 400 a bad range). */
export function fetchRunMetricsRange(
  runId: number,
  range: StepRange,
  signal?: AbortSignal,
): Promise<RunMetricsView> {
  return fetchJson<RunMetricsView>(apiRunMetricsRangePath(runId, range), { signal });
}

/** One run's metric series. @throws ApiError (404 when the run is gone). */
export function fetchRunMetrics(runId: number, signal?: AbortSignal): Promise<RunMetricsView> {
  return fetchJson<RunMetricsView>(apiRunMetricsPath(runId), { signal });
}

/** Key of one page of the overview (a child of overviewQueryKey, so invalidating that refreshes every page). */
export const overviewPageQueryKey = (offset: number) => [...overviewQueryKey, offset] as const;

/** The overview with the active runs from `offset` on (the server's page size). @throws ApiError. */
export function fetchOverview(signal?: AbortSignal, offset = 0): Promise<OverviewView> {
  return fetchJson<OverviewView>(offset > 0 ? `/api/overview?offset=${offset}` : "/api/overview", {
    signal,
  });
}

/** Key of one page of a run's artifacts (under "run-progress": a progress refresh refreshes it too). */
export const artifactPageQueryKey = (runId: number, offset: number, limit: number) =>
  ["run-progress", runId, "artifacts", offset, limit] as const;

/** `GET /api/runs/:id/artifacts?offset=&limit=`: artifacts newest first and the run's total. @throws ApiError (404 run gone). */
export function fetchArtifactPage(
  runId: number,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  return fetchJson(`/api/runs/${runId}/artifacts?offset=${offset}&limit=${limit}`, { signal });
}
