import { apiPath, fetchJson } from "@/lib/api/client";
import { searchRoute, type SearchResponse } from "@/lib/api/search";

/**
 * The browser's typed reads and writes of search, built from the contracts of lib/api/search.ts
 * (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx answer and TypeError
 * when the network fails.
 */

/** Runs, sessions, plans, hosts and checkpoints matching `q` (`GET /api/search`). @throws ApiError 400 for an empty `q`. */
export function fetchSearch(q: string, signal?: AbortSignal): Promise<SearchResponse> {
  return fetchJson<SearchResponse>(apiPath(searchRoute, {}, { q }), { signal });
}
