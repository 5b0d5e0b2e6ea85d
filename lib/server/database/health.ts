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
}

const globalForHealth = globalThis as typeof globalThis & { __pitwallHealth?: Cache };

/**
 * Whether the database answers `SELECT 1` within {@link HEALTH_PROBE_TIMEOUT_MS}, probed on a
 * connection of its own (not the shared pools: a frozen database must not pin their
 * connections, and a full pool must not make the probe wait). Never throws, never waits longer
 * than the timeout; results are cached for 1 s so a flood of probes opens at most one connection
 * per second. A change of state is logged once, with the reason.
 */
export function databaseHealth(url: string, log: Logger, now: () => number = Date.now): Promise<DatabaseHealth> {
  const cache = globalForHealth.__pitwallHealth;
  if (cache && now() - cache.at < HEALTH_CACHE_MS) return cache.result;
  const entry: Cache = { at: now(), result: Promise.resolve("down"), last: cache?.last ?? null };
  entry.result = probe(url, HEALTH_PROBE_TIMEOUT_MS).then(({ health, reason }) => {
    if (health !== entry.last) {
      if (health === "down") log.warn({ reason }, "health probe: database down");
      else if (entry.last === "down") log.info("health probe: database up again");
    }
    if (health === "down") markDatabaseOutage();
    entry.last = health;
    return health;
  });
  globalForHealth.__pitwallHealth = entry;
  return entry.result;
}

const globalForProbe = globalThis as typeof globalThis & { __pitwallProbeClient?: { url: string; client: Promise<pg.Client> } };

/**
 * The probe's own connection, kept open between probes: opening one costs a backend fork and a
 * SCRAM exchange, which under CPU load took longer than the timeout and made /healthz report a
 * healthy database down (4 of 25 probes); `SELECT 1` on an open connection stays fast. A probe
 * that fails drops the connection, so the next one connects afresh (and a frozen server is
 * noticed by the query timing out).
 */
function probeClient(url: string, timeoutMs: number): Promise<pg.Client> {
  const held = globalForProbe.__pitwallProbeClient;
  if (held && held.url === url) return held.client;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => dropProbeClient()); // a lost connection: reconnect at the next probe
  const connected = client.connect().then(() => client);
  globalForProbe.__pitwallProbeClient = { url, client: connected };
  connected.catch(() => dropProbeClient());
  return connected;
}

function dropProbeClient(): void {
  const held = globalForProbe.__pitwallProbeClient;
  globalForProbe.__pitwallProbeClient = undefined;
  void held?.client
    .then((c) => {
      // A frozen server never answers end(): drop the socket so probes do not pile up.
      (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      return c.end();
    })
    .catch(() => undefined);
}

async function probe(url: string, timeoutMs: number): Promise<{ health: DatabaseHealth; reason?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([(async () => (await probeClient(url, timeoutMs)).query("SELECT 1"))(), deadline]);
    return { health: "up" };
  } catch (err) {
    dropProbeClient();
    return { health: "down", reason: describeOutage(err) };
  } finally {
    clearTimeout(timer);
  }
}
