"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";

import { queryKeyForTopic } from "@/lib/api/query-keys";
import { isSharedReadTopic } from "@/lib/protocol/live";

import { coalescer } from "./coalesce";
import { latestPerFrame } from "./latest-per-frame";
import type { LiveStatus } from "./live-client";
import { useLiveClient } from "./live-provider";
import { writeSharedRead } from "./shared-read-cache";

/** Poll interval (ms) while the socket is down; react-query polls only in that case. */
export const FALLBACK_POLL_MS = 5_000;
/**
 * Slow safety refetch (ms) while live: staleness is derived from the clock on the server
 * (nothing is pushed when a worker goes quiet), so a quiet run must still turn amber eventually.
 */
export const LIVE_REFRESH_MS = 30_000;

/**
 * Keeps react-query data for `topics` live: on `changed` the matching queries are invalidated
 * (and refetched if mounted; `runs` at most once per 2 s, coalesce.ts); after every (re)connect all of them are refetched. Shared-read
 * topics (`run:<id>`) are not refetched: the server pushes their value (snapshot on subscribe,
 * then deltas) and it is written into the cache (writeSharedRead), the newest value once per animation frame. Returns the connection status;
 * pass it to {@link refetchIntervalFor} (or {@link sharedRefetchIntervalFor}) so queries poll while it is down.
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
    // List topics notified on every ingest batch (`runs`) refetch at most once per window (coalesce.ts).
    const changed = coalescer(invalidate);
    // Pushed values go into the cache once per animation frame, the newest only (latest-per-frame.ts).
    const pushed = latestPerFrame<unknown>((topic, data) =>
      writeSharedRead(queryClient, topic, data),
    );
    const unsubscribe = client.subscribe({
      topics: list,
      onChanged: changed.notify,
      // Shared-read topics get a fresh snapshot after every (re)connect instead.
      onResync: () => list.filter((t) => !isSharedReadTopic(t)).forEach(invalidate),
      onData: pushed.push,
    });
    return () => {
      changed.dispose();
      pushed.dispose();
      unsubscribe();
    };
  }, [client, queryClient, key]);

  return useSyncExternalStore(client.onStatus, client.getStatus, () => "connecting" as const);
}

/**
 * react-query `refetchInterval` for reads a shared-read topic keeps current (the run page's run,
 * progress and metrics): none while the socket is open (the pushed value is the data), every 5 s
 * while it is down.
 */
export function sharedRefetchIntervalFor(status: LiveStatus): number | false {
  return status === "open" ? false : FALLBACK_POLL_MS;
}

/** react-query `refetchInterval` for a live status: poll every 5 s unless the socket is open. */
export function refetchIntervalFor(status: LiveStatus): number {
  return status === "open" ? LIVE_REFRESH_MS : FALLBACK_POLL_MS;
}
