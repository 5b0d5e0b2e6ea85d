import { fetchJson } from "@/lib/api/client";
import type { RunServingView, ServingWindowView } from "@/lib/view-models/serving";

/**
 * react-query keys and fetchers of serving telemetry. Outside ["run", id] and ["hosts", name], so
 * pages refresh them throttled on the `runs` topic (every serving push touches a run).
 */

/** Key of a host's serving panel. */
export const hostServingQueryKey = (name: string, rangeSearch = "") =>
  ["serving", "host", name, rangeSearch] as const;
/** Key of a run's server telemetry (`rangeSearch`: the page's time range parameters, "" for the default window). */
export const runServingQueryKey = (runId: number, rangeSearch = "") =>
  ["serving", "run", runId, rangeSearch] as const;

/** `GET /api/hosts/:name/serving?<rangeSearch>`. @throws ApiError (400 bad range, 404 when the host is unknown). */
export function fetchHostServing(
  name: string,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<ServingWindowView> {
  return fetchJson<ServingWindowView>(
    `/api/hosts/${encodeURIComponent(name)}/serving${rangeSearch ? `?${rangeSearch}` : ""}`,
    { signal },
  );
}

/** `GET /api/runs/:id/serving?<rangeSearch>`. @throws ApiError (400 bad range, 404 when the run is gone). */
export function fetchRunServing(
  runId: number,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<RunServingView> {
  return fetchJson<RunServingView>(
    `/api/runs/${runId}/serving${rangeSearch ? `?${rangeSearch}` : ""}`,
    { signal },
  );
}
