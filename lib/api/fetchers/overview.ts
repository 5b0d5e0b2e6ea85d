import { apiPath, fetchJson } from "@/lib/api/client";
import { overviewRoute, type OverviewResponse } from "@/lib/api/overview";

/**
 * The browser's typed reads and writes of the overview page, built from the contracts of
 * lib/api/overview.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx
 * answer and TypeError when the network fails.
 */

/**
 * The overview with the active runs from `offset` on (the server's page size; `GET
 * /api/overview`), as the page refetches it: an answer shared with other viewers and up to 1 s
 * old is fine (a change it lacks is announced again, lib/server/live/shared-overview.ts).
 * @throws ApiError.
 */
export function fetchOverview(signal?: AbortSignal, offset = 0): Promise<OverviewResponse> {
  return fetchJson<OverviewResponse>(
    apiPath(overviewRoute, {}, { offset: offset > 0 ? offset : undefined }),
    { signal, maxAgeS: 1 },
  );
}
