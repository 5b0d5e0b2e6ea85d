import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import {
  createSavedViewRoute,
  deleteSavedViewRoute,
  listSavedViewsRoute,
  patchSavedViewRoute,
  type ListSavedViewsResponse,
  type SavedViewResponse,
} from "@/lib/api/views";

/**
 * The browser's typed reads and writes of saved views, built from the contracts of
 * lib/api/views.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx
 * answer and TypeError when the network fails.
 */

/** The signed-in person's saved views of `page` (`GET /api/views`). @throws ApiError 403 for a worker token. */
export async function fetchSavedViews(
  page: "runs",
  signal?: AbortSignal,
): Promise<ListSavedViewsResponse["views"]> {
  const path = apiPath(listSavedViewsRoute, {}, { page });
  return (await fetchJson<ListSavedViewsResponse>(path, { signal })).views;
}

/** Saves the current query under `name` (`POST /api/views`). @throws ApiError 409 `conflict` when the name is taken, 400 `invalid_body`. */
export function createSavedView(
  page: "runs",
  name: string,
  query: string,
): Promise<SavedViewResponse> {
  return sendJson<SavedViewResponse>("POST", apiPath(createSavedViewRoute), { page, name, query });
}

/** Renames a view or replaces its query (`PATCH /api/views/:id`). @throws ApiError 404, 409, 400. */
export function updateSavedView(
  id: number,
  patch: { name?: string; query?: string },
): Promise<SavedViewResponse> {
  return sendJson<SavedViewResponse>("PATCH", apiPath(patchSavedViewRoute, { id }), patch);
}

/** Deletes a view (`DELETE /api/views/:id`). @throws ApiError 404 when it is not the person's. */
export async function deleteSavedView(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteSavedViewRoute, { id }));
}
