import pg from "pg";

import type { Logger } from "@/lib/server/logger";

import { describeOutage } from "./outage";
import { markDatabaseOutage } from "./outage-mark";

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
  /** Failed probes in a row. */
  failures: number;
}

const globalForHealth = globalThis as typeof globalThis & { __pitwallHealth?: Cache };

/**
 * Whether the database answers `SELECT 1` within {@link HEALTH_PROBE_TIMEOUT_MS}, probed on a
 * connection of its own (not the shared pools: a frozen database must not pin their
 * connections, and a full pool must not make the probe wait). Never throws, never waits longer
 * than twice the timeout (a failed probe is retried once); results are cached for 1 s so a flood of probes opens at most one connection
 * per second. A change of state is logged once, with the reason.
 */
export function databaseHealth(
  url: string,
  log: Logger,
  now: () => number = Date.now,
): Promise<DatabaseHealth> {
  const cache = globalForHealth.__pitwallHealth;
  if (cache && now() - cache.at < HEALTH_CACHE_MS) return cache.result;
  const entry: Cache = {
    at: now(),
    result: Promise.resolve("down"),
    last: cache?.last ?? null,
    failures: cache?.failures ?? 0,
  };
  entry.result = probe(url, HEALTH_PROBE_TIMEOUT_MS).then(({ health: probed, reason, refused }) => {
    entry.failures = probed === "up" ? 0 : entry.failures + 1;
    // One slow probe is not an outage: under CPU load a fresh connection (backend fork + SCRAM)
    // can take longer than the timeout, which made /healthz flap (4 of 25 probes). "down" needs
    // two failed probes in a row (each still answers within the timeout, so a frozen database is
    // reported down after about 2.5 s), or a refused connection, which is certain at once.
    const health: DatabaseHealth =
      probed === "up" || (entry.failures < 2 && !refused && entry.last !== "down") ? "up" : "down";
    if (health !== entry.last) {
      if (health === "down") log.warn({ reason }, "health probe: database down");
      else if (entry.last === "down") log.info("health probe: database up again");
    }
    if (probed === "down") markDatabaseOutage();
    entry.last = health;
    return health;
  });
  globalForHealth.__pitwallHealth = entry;
  return entry.result;
}

async function probe(
  url: string,
  timeoutMs: number,
): Promise<{ health: DatabaseHealth; reason?: unknown; refused?: boolean }> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on("error", () => undefined); // reported through the promise below
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => (await client.connect(), await client.query("SELECT 1")))(),
      deadline,
    ]);
    return { health: "up" };
  } catch (err) {
    // A frozen server never answers end(): drop the socket so probes do not pile up.
    (
      client as unknown as { connection?: { stream?: { destroy(): void } } }
    ).connection?.stream?.destroy();
    const reason = describeOutage(err);
    return {
      health: "down",
      reason,
      refused:
        reason.code === "ECONNREFUSED" ||
        reason.code === "ECONNRESET" ||
        /terminat|shutting down|starting up/i.test(reason.message),
    };
  } finally {
    clearTimeout(timer);
    client.end().catch(() => undefined);
  }
}
