/**
 * Derived liveness states. A stale run or host is one we have stopped hearing from; it is a state
 * of its own and never shown as crashed (failed) or as running. Time is passed in (epoch ms).
 */

/** Stored run status as workers report it. */
export type RunStatus = "running" | "succeeded" | "failed" | "cancelled" | "ended";

/** Run status as shown: the stored status, or "stale" for a running run. */
export type RunState = RunStatus | "stale";

/** Host liveness derived from its heartbeats. */
export type HostState = "online" | "stale" | "offline";

/** Seconds without a heartbeat after which a host is offline, unless 3 heartbeat intervals are longer. */
export const HOST_OFFLINE_AFTER_S = 300;

/** "stale" when status is running and the last push (epoch ms) is more than stallAfterS seconds before nowMs (or not a finite time); else the status. */
export function runState(
  status: RunStatus,
  lastPushMs: number,
  stallAfterS: number,
  nowMs: number,
): RunState {
  if (status !== "running") return status;
  const ageMs = nowMs - lastPushMs;
  // Written as "not within the threshold" so an unusable push time (NaN) reads as stale: a run we
  // cannot prove alive must never look like a running one. A push from the future (clock skew) is fresh.
  return ageMs <= stallAfterS * 1000 ? "running" : "stale";
}

/** "offline" when never seen or silent > max(300 s, 3 × intervalS); "stale" when silent > 3 × intervalS; else "online" (ages in ms from epoch-ms inputs). */
export function hostState(
  lastHeartbeatMs: number | null,
  intervalS: number,
  nowMs: number,
): HostState {
  if (lastHeartbeatMs === null || !Number.isFinite(lastHeartbeatMs)) return "offline";
  // A host that heartbeats rarely (interval ≥ 100 s) is not called offline before it has missed
  // three beats: offline waits for max(300 s, 3 intervals). For such hosts the stale band is empty
  // and they go straight from online to offline. An unusable interval (≤ 0, NaN) gives no grace.
  const missedAfterMs = Number.isFinite(intervalS) && intervalS > 0 ? 3 * intervalS * 1000 : 0;
  const offlineAfterMs = Math.max(HOST_OFFLINE_AFTER_S * 1000, missedAfterMs);
  const ageMs = nowMs - lastHeartbeatMs;
  if (ageMs > offlineAfterMs) return "offline";
  if (ageMs > missedAfterMs) return "stale";
  return "online";
}
