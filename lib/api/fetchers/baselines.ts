import {
  createBaselineRoute,
  deleteBaselineRoute,
  listBaselinesRoute,
  patchBaselineRoute,
  type BaselineResponse,
  type ListBaselinesResponse,
} from "@/lib/api/baselines";
import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import type { DraftSettings } from "@/lib/view-models/evals";

/**
 * The browser's typed reads and writes of baselines, built from the contracts of
 * lib/api/baselines.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx
 * answer and TypeError when the network fails.
 */

/** Every baseline (`GET /api/baselines`). @throws ApiError. */
export function fetchBaselines(signal?: AbortSignal): Promise<ListBaselinesResponse> {
  return fetchJson<ListBaselinesResponse>(apiPath(listBaselinesRoute), { signal });
}

/** What the baseline form sends (the `baseline.upsert` frame's fields; null: none). */
export interface BaselineBody {
  name: string;
  metric: string;
  value: number;
  tolerance?: number | null;
  dataset?: string | null;
  settings?: DraftSettings;
  sourceUrl?: string | null;
}

/** Creates a baseline (`POST /api/baselines`). @throws ApiError: 409 `baseline_exists`, 403 without the approver role, 400 bad body. */
export function createBaseline(body: BaselineBody): Promise<BaselineResponse> {
  const { tolerance, dataset, sourceUrl, ...rest } = body;
  // POST takes absent optional fields, never null.
  const payload = {
    ...rest,
    ...(tolerance != null ? { tolerance } : {}),
    ...(dataset ? { dataset } : {}),
    ...(sourceUrl ? { sourceUrl } : {}),
  };
  return sendJson<BaselineResponse>("POST", apiPath(createBaselineRoute), payload);
}

/** Changes a baseline (`PATCH /api/baselines/:id`; null clears tolerance, dataset, sourceUrl). @throws ApiError: 409 `baseline_exists`, 404, 403, 400. */
export function updateBaseline(id: number, body: Partial<BaselineBody>): Promise<BaselineResponse> {
  return sendJson<BaselineResponse>("PATCH", apiPath(patchBaselineRoute, { id }), body);
}

/** Deletes a baseline (`DELETE /api/baselines/:id`). @throws ApiError: 404, 403. */
export async function deleteBaseline(id: number): Promise<void> {
  await sendJson<void>("DELETE", apiPath(deleteBaselineRoute, { id }));
}
