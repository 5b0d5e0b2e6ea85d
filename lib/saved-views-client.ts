import { fetchJson, sendJson } from "@/lib/api/client";

import type { SavedViewView } from "./view-models";

/** react-query key of the signed-in person's saved views of a page. */
export const savedViewsQueryKey = (page: string) => ["saved-views", page] as const;

/** The signed-in person's saved views of `page` (`GET /api/views`). @throws ApiError 403 for a worker token. */
export async function fetchSavedViews(
  page: string,
  signal?: AbortSignal,
): Promise<SavedViewView[]> {
  return (
    await fetchJson<{ views: SavedViewView[] }>(`/api/views?page=${encodeURIComponent(page)}`, {
      signal,
    })
  ).views;
}

/** Saves the current query under `name` (`POST /api/views`). @throws ApiError 409 `conflict` when the name is taken, 400 `invalid_body`. */
export function createSavedView(page: string, name: string, query: string): Promise<SavedViewView> {
  return sendJson<SavedViewView>("POST", "/api/views", { page, name, query });
}

/** Renames a view or replaces its query (`PATCH /api/views/:id`). @throws ApiError 404, 409, 400. */
export function updateSavedView(
  id: number,
  patch: { name?: string; query?: string },
): Promise<SavedViewView> {
  return sendJson<SavedViewView>("PATCH", `/api/views/${id}`, patch);
}

/** Deletes a view (`DELETE /api/views/:id`). @throws ApiError 404 when it is not the person's. */
export function deleteSavedView(id: number): Promise<void> {
  return sendJson<void>("DELETE", `/api/views/${id}`);
}
