"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useEffect } from "react";

import { coalescer } from "@/components/live/coalesce";
import { useLiveClient } from "@/components/live/live-provider";

/**
 * Invalidates the given query keys when any of `topics` changes (and after every reconnect), for
 * reads lib/api/query-keys.ts does not map (such as `hosts`) or that must not refetch on every push.
 * With `minIntervalMs`, changes are throttled: at most one refetch per interval (leading and
 * trailing edge), so a run pushing several times a second does not re-run expensive reads
 * (uploads over time, downsampled metrics) as often. Use next to useLiveTopics, which reports the
 * connection status.
 */
export function useLiveInvalidate(
  topics: readonly string[],
  keys: readonly QueryKey[],
  opts: { minIntervalMs?: number } = {},
): void {
  const client = useLiveClient();
  const queryClient = useQueryClient();
  const topicKey = topics.join("\n");
  const keysKey = JSON.stringify(keys);
  const minIntervalMs = opts.minIntervalMs ?? 0;

  // Subscribing to the shared socket (and the throttle timer): external systems.
  useEffect(() => {
    const list = topicKey ? topicKey.split("\n") : [];
    const queryKeys = JSON.parse(keysKey) as QueryKey[];
    if (list.length === 0 || queryKeys.length === 0) return;
    const invalidate = () => {
      for (const queryKey of queryKeys) void queryClient.invalidateQueries({ queryKey });
    };
    // Every topic of the list feeds one throttle (coalesce.ts, leading and trailing edge).
    const changed = coalescer(invalidate, { any: minIntervalMs });
    const unsubscribe = client.subscribe({
      topics: list,
      onChanged: () => changed.notify("any"),
      onResync: invalidate,
    });
    return () => {
      unsubscribe();
      changed.dispose();
    };
  }, [client, queryClient, topicKey, keysKey, minIntervalMs]);
}
