import { fetchJson } from "@/lib/api-client";
import type { HostDetailView, HostListView } from "@/lib/view-models/hosts";

/** Key of the host list; host pages sit under it (["hosts", name]), so invalidating ["hosts"] refreshes both. */
export const hostsQueryKey = ["hosts"] as const;
/** Key of one host's page. */
export const hostQueryKey = (name: string) => ["hosts", name] as const;

/** `/hosts/:name`. */
export function hostPath(name: string): string {
  return `/hosts/${encodeURIComponent(name)}`;
}

/** The host list (`GET /api/hosts`). @throws ApiError. */
export function fetchHosts(signal?: AbortSignal): Promise<HostListView> {
  return fetchJson<HostListView>("/api/hosts", { signal });
}

/** One host (`GET /api/hosts/:name`). @throws ApiError (404 when unknown). */
export function fetchHost(name: string, signal?: AbortSignal): Promise<HostDetailView> {
  return fetchJson<HostDetailView>(`/api/hosts/${encodeURIComponent(name)}`, { signal });
}
