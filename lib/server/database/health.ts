import pg from "pg";
import type { Logger } from "@/lib/server/logger";
import { describeOutage } from "./outage";

/** Result of a database probe: up, or down (the reason is logged, never returned to callers). */
export type DatabaseHealth = "up" | "down";

/** Longest a probe may take, in ms: connect + `SELECT 1` on a connection of its own. */
export const HEALTH_PROBE_TIMEOUT_MS = 1500;
/** A probe result is reused for this long (ms), and concurrent callers share one probe. */
const HEALTH_CACHE_MS = 1000;

interface Cache {
  at: number;
  result: Promise<DatabaseHealth>;
  last: DatabaseHealth | null;
}

const globalForHealth = globalThis as typeof globalThis & { __pitwallHealth?: Cache };

/**
 * Whether the database answers `SELECT 1` within {@link HEALTH_PROBE_TIMEOUT_MS}, probed on a
 * connection of its own (not the shared pools: a frozen database must not pin their
 * connections, and a full pool must not make the probe wait). Never throws, never waits longer
 * than twice the timeout (a failed probe is retried once); results are cached for 1 s so a flood of probes opens at most one connection
 * per second. A change of state is logged once, with the reason.
 */
export function databaseHealth(url: string, log: Logger, now: () => number = Date.now): Promise<DatabaseHealth> {
  const cache = globalForHealth.__pitwallHealth;
  if (cache && now() - cache.at < HEALTH_CACHE_MS) return cache.result;
  const entry: Cache = { at: now(), result: Promise.resolve("down"), last: cache?.last ?? null };
  // A failed probe is tried once more before the database counts as down: one slow connect under CPU
  // load (a demo's or a build's start) is not an outage, and logged "database down" at a healthy start (issue 25).
  entry.result = probe(url, HEALTH_PROBE_TIMEOUT_MS)
    .then((first) => (first.health === "up" ? first : probe(url, HEALTH_PROBE_TIMEOUT_MS)))
    .then(({ health, reason }) => {
      if (health !== entry.last) {
        if (health === "down") log.warn({ reason }, "health probe: database down");
        else if (entry.last === "down") log.info("health probe: database up again");
      }
      entry.last = health;
      return health;
    });
  globalForHealth.__pitwallHealth = entry;
  return entry.result;
}

async function probe(url: string, timeoutMs: number): Promise<{ health: DatabaseHealth; reason?: unknown }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on("error", () => undefined); // reported through the promise below
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([(async () => (await client.connect(), await client.query("SELECT 1")))(), deadline]);
    return { health: "up" };
  } catch (err) {
    // A frozen server never answers end(): drop the socket so probes do not pile up.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    return { health: "down", reason: describeOutage(err) };
  } finally {
    clearTimeout(timer);
    client.end().catch(() => undefined);
  }
}
