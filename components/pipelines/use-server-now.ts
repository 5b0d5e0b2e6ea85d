"use client";

import { useNow } from "@/components/live/use-now";
import { runState } from "@/lib/metrics/staleness";
import type { RunState } from "@/lib/view-models";

/**
 * The server's clock, estimated from a read model's `asOf` plus the time elapsed since react-query
 * received it (`dataUpdatedAt`), ticking every second. Staleness is judged on the server's clock,
 * so a browser whose clock is off does not turn runs amber early or late.
 */
export function useServerNow(asOf: string, dataUpdatedAt: number): number {
  const now = useNow();
  return Date.parse(asOf) + Math.max(0, now - dataUpdatedAt);
}

/**
 * A run's state re-derived at `serverNowMs`: nothing is pushed when a worker goes quiet, so a
 * running run turns stale here as soon as its stall threshold passes, without waiting for a refetch.
 */
export function liveRunState(
  state: RunState,
  lastPushAt: string,
  stallAfterS: number,
  serverNowMs: number,
): RunState {
  if (state !== "running" && state !== "stale") return state;
  return runState("running", Date.parse(lastPushAt), stallAfterS, serverNowMs);
}
