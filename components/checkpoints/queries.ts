import { fetchJson } from "@/lib/api/client";
import { apiCheckpointLineagePath, apiCheckpointsPath } from "@/lib/checkpoint-paths";
import type { CheckpointLineageView, CheckpointListView } from "@/lib/view-models/lineage";

/**
 * react-query keys and fetchers of the checkpoint pages. The keys sit outside the prefixes the
 * `runs` / `evals` topics invalidate by themselves (lib/query-keys.ts): the pages refresh them
 * throttled with useLiveInvalidate, since every push to any run changes `runs`.
 */

/** Live topics that can change a checkpoint's lineage: any run (artifacts, configs, states) and any eval. */
export const CHECKPOINT_TOPICS = ["runs", "evals"] as const;

/** Key of the checkpoint list. */
export const checkpointsQueryKey = (limit: number) => ["checkpoints", limit] as const;
/** Key of one checkpoint's lineage. */
export const checkpointLineageQueryKey = (uri: string) => ["checkpoint-lineage", uri] as const;

/** The checkpoint list. @throws ApiError. */
export function fetchCheckpoints(limit: number, signal?: AbortSignal): Promise<CheckpointListView> {
  return fetchJson<CheckpointListView>(apiCheckpointsPath(limit), { signal });
}

/** One checkpoint's lineage. @throws ApiError. */
export function fetchCheckpointLineage(
  uri: string,
  signal?: AbortSignal,
): Promise<CheckpointLineageView> {
  return fetchJson<CheckpointLineageView>(apiCheckpointLineagePath(uri), { signal });
}
