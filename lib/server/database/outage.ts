/**
 * Tells a database outage (retry the whole batch later) from an error that belongs to the frames
 * themselves (reject them, never retry).
 *
 * Outage: the connection could not be made or was lost (Node socket errors such as ECONNREFUSED,
 * ECONNRESET, EPIPE, ETIMEDOUT; pg's "Connection terminated…"), the pool waited too long for a
 * connection, or PostgreSQL said so itself: SQLSTATE class 08 (connection exception), class 57
 * (operator intervention: admin shutdown 57P01, crash shutdown 57P02, cannot connect now 57P03,
 * query canceled 57014 by statement_timeout), 53300 too many connections. Everything else (a data
 * error, a program limit such as "stack depth limit exceeded" 54001, a bug of ours that throws a
 * TypeError) is not an outage. Prisma's own codes for the same: P1001/P1002 (cannot reach / timed
 * out), P1017 (server closed the connection), P2024 (timed out fetching a pooled connection).
 */

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNABORTED",
]);

const PRISMA_OUTAGE_CODES = new Set(["P1001", "P1002", "P1017", "P2024"]);

/** True when `err` means the database is unreachable or going away (see the module comment). */
export function isDatabaseOutage(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  if (err instanceof AggregateError && err.errors.some(isDatabaseOutage)) return true;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code)) return true;
    if (/^(08|57)[0-9A-Z]{3}$/.test(code) || code === "53300") return true;
    if (PRISMA_OUTAGE_CODES.has(code)) return true;
  }
  const cause = (err as { cause?: unknown }).cause;
  if (cause && cause !== err && isDatabaseOutage(cause)) return true;
  const text = typeof message === "string" ? message : "";
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Can't reach database server|Server has closed the connection|ECONNREFUSED|Client has encountered a connection error|Cannot use a pool after calling end|the database system is (starting up|shutting down)/i.test(
    text,
  );
}

/** A short, loggable summary of an outage error: `{ code, message }` without the driver's stack. */
export function describeOutage(err: unknown): { code?: string; message: string } {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === "string" ? { code } : {}),
    message: typeof message === "string" && message ? message : String(err),
  };
}
