/**
 * The clock an agent session is measured on. An imported session (an opencode export or a Claude
 * Code transcript read by `pitwall import`) is a record of the past: its time ends at its latest
 * snapshot, so an item left in progress when the file was written is "in progress for" the time
 * up to that snapshot, not up to the day someone imported the file (months later: "137d"). A
 * pushed session is live: its clock is now. Pure; times are epoch ms.
 */

/** Sources whose snapshots are read from a file after the fact (see lib/view-models/sessions.ts `SessionSource`). */
export const IMPORTED_SESSION_SOURCES: readonly string[] = ["opencode", "claude-code"];

/** "Now" for a session's durations and stuck items: min(nowMs, its latest snapshot) for an imported session, nowMs for a pushed one. */
export function sessionClockMs(session: { source: string; lastUpdateAt: string | Date }, nowMs: number): number {
  if (!IMPORTED_SESSION_SOURCES.includes(session.source)) return nowMs;
  const last = typeof session.lastUpdateAt === "string" ? Date.parse(session.lastUpdateAt) : session.lastUpdateAt.getTime();
  return Number.isFinite(last) ? Math.min(nowMs, last) : nowMs;
}
