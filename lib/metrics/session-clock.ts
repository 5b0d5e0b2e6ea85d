/**
 * The clock an agent session is measured on. A session with no live state read from a file by
 * `pitwall import` (an opencode export or a Claude Code transcript) is a record of the past: its
 * time ends at its latest snapshot, so an item left in progress when the file was written is "in
 * progress for" the time up to that snapshot, not up to the day someone imported the file (months
 * later: "137d"). A session its agent ended stops at its end. Any other session is live (pushed,
 * or by the Claude Code / opencode hooks, which share those sources but report a live state): its
 * clock is now. Pure; times are epoch ms.
 */

/** Sources whose sessions may be read from a file after the fact (see lib/view-models/sessions.ts `SessionSource`). */
export const IMPORTED_SESSION_SOURCES: readonly string[] = ["opencode", "claude-code"];

/** What the clock needs of a session: its source, latest snapshot time and live state (null: none reported). */
export interface SessionClockInput {
  source: string;
  lastUpdateAt: string | Date;
  live: { state: string; since: string } | null;
}

/**
 * "Now" for a session's durations and stuck items: nowMs for a live session; min(nowMs, its
 * latest snapshot) for an imported one; min(nowMs, the later of its latest snapshot and its end)
 * for an ended one.
 */
export function sessionClockMs(session: SessionClockInput, nowMs: number): number {
  const last = toMs(session.lastUpdateAt);
  let end: number | null = null;
  if (session.live?.state === "ended")
    end = Math.max(last ?? -Infinity, toMs(session.live.since) ?? -Infinity);
  else if (session.live === null && IMPORTED_SESSION_SOURCES.includes(session.source)) end = last;
  return end !== null && Number.isFinite(end) ? Math.min(nowMs, end) : nowMs;
}

/** Epoch ms of an ISO string or Date; null when unparsable. */
function toMs(t: string | Date): number | null {
  const ms = typeof t === "string" ? Date.parse(t) : t.getTime();
  return Number.isFinite(ms) ? ms : null;
}
