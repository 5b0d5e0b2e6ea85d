import {
  checkpointLineageRoute,
  listCheckpointsRoute,
  type CheckpointLineageResponse,
  type ListCheckpointsResponse,
} from "@/lib/api/checkpoints";
import { apiPath, fetchJson } from "@/lib/api/client";

/**
 * The browser's typed reads and writes of checkpoints and their lineage, built from the contracts
 * of lib/api/checkpoints.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a
 * non-2xx answer and TypeError when the network fails.
 */

/** The checkpoint list, newest first (`GET /api/checkpoints?limit`). @throws ApiError. */
export function fetchCheckpoints(
  limit: number,
  signal?: AbortSignal,
): Promise<ListCheckpointsResponse> {
  return fetchJson<ListCheckpointsResponse>(apiPath(listCheckpointsRoute, {}, { limit }), {
    signal,
  });
}

/** One checkpoint's lineage (`GET /api/checkpoints/lineage?uri`). @throws ApiError. */
export function fetchCheckpointLineage(
  uri: string,
  signal?: AbortSignal,
): Promise<CheckpointLineageResponse> {
  return fetchJson<CheckpointLineageResponse>(apiPath(checkpointLineageRoute, {}, { uri }), {
    signal,
  });
}
