import { fetchJson } from "@/lib/api-client";
import type { HostDetailView, HostListView } from "@/lib/view-models/hosts";

/** Key of the host list; host pages sit under it (["hosts", name]), so invalidating ["hosts"] refreshes both. */
export const hostsQueryKey = ["hosts"] as const;
/** Key of one host's page (its time-range URL parameters as the third part, "" for the last hour). */
export const hostQueryKey = (name: string, rangeSearch = "") =>
  ["hosts", name, rangeSearch] as const;

/** `/hosts/:name`. */
export function hostPath(name: string): string {
  return `/hosts/${encodeURIComponent(name)}`;
}

/** The host list (`GET /api/hosts`). @throws ApiError. */
export function fetchHosts(signal?: AbortSignal): Promise<HostListView> {
  return fetchJson<HostListView>("/api/hosts", { signal });
}

/** One host (`GET /api/hosts/:name?<rangeSearch>`). @throws ApiError (404 when unknown). */
export function fetchHost(
  name: string,
  signal?: AbortSignal,
  rangeSearch = "",
): Promise<HostDetailView> {
  return fetchJson<HostDetailView>(
    `/api/hosts/${encodeURIComponent(name)}${rangeSearch ? `?${rangeSearch}` : ""}`,
    { signal },
  );
}
