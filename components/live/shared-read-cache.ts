import type { QueryClient } from "@tanstack/react-query";

import { metricsQueryKey, progressQueryKey, runQueryKey } from "@/lib/api/query-keys";
import type { RunLiveView } from "@/lib/view-models/live";

/**
 * Writes the merged value of a shared-read topic into the react-query cache, under the keys of
 * the reads it stands for (`run:<id>` → the run, its progress and its metrics), so mounted
 * queries show it without refetching. Unknown topics are ignored.
 */
export function writeSharedRead(queryClient: QueryClient, topic: string, data: unknown): void {
  const m = /^run:(\d+)$/.exec(topic);
  if (!m || typeof data !== "object" || data === null) return;
  const id = Number(m[1]);
  const view = data as RunLiveView;
  queryClient.setQueryData(runQueryKey(id), view.run);
  queryClient.setQueryData(progressQueryKey(id), view.progress);
  queryClient.setQueryData(metricsQueryKey(id), view.metrics);
}
