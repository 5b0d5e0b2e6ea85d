/**
 * When this process last saw the database unreachable, shared by server.ts and Next's bundle
 * (on globalThis): a page whose render failed on an outage is answered 503, not 500, by the
 * custom server (server.ts), which only sees the status Next writes.
 */

const globalForOutage = globalThis as typeof globalThis & { __pitwallOutageAt?: number };

/** Records that an outage was seen now (ms since the epoch). */
export function markDatabaseOutage(nowMs: number = Date.now()): void {
  globalForOutage.__pitwallOutageAt = nowMs;
}

/** True when an outage was seen within the last `withinMs` (default 5 s). */
export function recentDatabaseOutage(withinMs = 5000, nowMs: number = Date.now()): boolean {
  const at = globalForOutage.__pitwallOutageAt;
  return at !== undefined && nowMs - at <= withinMs;
}
