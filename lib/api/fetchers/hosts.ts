import { apiPath, fetchJson, withRange } from "@/lib/api/client";
import {
  getHostRoute,
  hostServingRoute,
  listHostsRoute,
  type HostResponse,
  type HostServingResponse,
  type ListHostsResponse,
} from "@/lib/api/hosts";

/**
 * The browser's typed reads and writes of hosts: the list, one host and its serving panel, built
 * from the contracts of lib/api/hosts.ts (keys: lib/api/query-keys.ts). Every function throws
 * ApiError for a non-2xx answer and TypeError when the network fails.
 */

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
  return fetchJson<HostResponse>(withRange(apiPath(getHostRoute, { name }), rangeSearch), {
    signal,
  });
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
