"use client";

import { useEffect, useSyncExternalStore } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { queryKeyForTopic } from "@/lib/query-keys";
import type { LiveStatus } from "./live-client";
import { useLiveClient } from "./live-provider";

/** Poll interval (ms) while the socket is down; react-query polls only in that case. */
export const FALLBACK_POLL_MS = 5_000;
/**
 * Slow safety refetch (ms) while live: staleness is derived from the clock on the server
 * (nothing is pushed when a worker goes quiet), so a quiet run must still turn amber eventually.
 */
export const LIVE_REFRESH_MS = 30_000;

/**
 * Keeps react-query data for `topics` live: on `changed` the matching queries are invalidated
 * (and refetched if mounted); after every (re)connect all of them are refetched. Returns the
 * connection status; pass it to {@link refetchIntervalFor} so queries poll while it is down.
 */
export function useLiveTopics(topics: readonly string[]): LiveStatus {
  const client = useLiveClient();
  const queryClient = useQueryClient();
  const key = topics.join("\n");

  // The one effect: subscribing to the socket, an external system.
  useEffect(() => {
    const list = key ? key.split("\n") : [];
    if (list.length === 0) return;
    const invalidate = (topic: string) => {
      const queryKey = queryKeyForTopic(topic);
      if (queryKey) void queryClient.invalidateQueries({ queryKey });
    };
    return client.subscribe({
      topics: list,
      onChanged: invalidate,
      onResync: () => list.forEach(invalidate),
    });
  }, [client, queryClient, key]);

  return useSyncExternalStore(client.onStatus, client.getStatus, () => "connecting" as const);
}

/** react-query `refetchInterval` for a live status: poll every 5 s unless the socket is open. */
export function refetchIntervalFor(status: LiveStatus): number {
  return status === "open" ? LIVE_REFRESH_MS : FALLBACK_POLL_MS;
}
