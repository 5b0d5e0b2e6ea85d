import { stringifyApiJson } from "@/lib/protocol/api-json";

import { describeOutage, isDatabaseOutage } from "./database/outage";
import { markDatabaseOutage } from "./database/outage-mark";
import { AppError, DatabaseUnavailableError } from "./errors";
import { logger } from "./logger";

/**
 * A JSON response written the Pitwall way (lib/protocol/api-json.ts): non-finite numbers as
 * `{"$num":"NaN"}` / `{"$num":"Infinity"}` / `{"$num":"-Infinity"}`, bigints as decimal strings.
 */
export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(stringifyApiJson(data), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
  });
}

/** Error body of every API error: `{ error: { code, message } }`. */
export function errorResponse(status: number, code: string, message: string): Response {
  return json({ error: { code, message } }, status);
}

/**
 * Runs a route handler body and maps typed errors to HTTP responses in one place:
 * AppError subclasses to their status/code; a database outage to 503 `database_unavailable`
 * (logged without a stack; the database's address never reaches the response); anything else to
 * 500 (logged).
 */
export async function handle(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err.status, err.code, err.message);
    if (isDatabaseOutage(err)) {
      markDatabaseOutage();
      logger.warn({ err: describeOutage(err) }, "request failed: database unavailable");
      const unavailable = new DatabaseUnavailableError();
      return errorResponse(unavailable.status, unavailable.code, unavailable.message);
    }
    logger.error({ err }, "request failed");
    return errorResponse(500, "internal", "internal server error");
  }
}

/**
 * How old an answer the request accepts, from its `Cache-Control: max-age=N` (seconds) header, in
 * ms; 0 without one (or with `no-cache`): the caller wants an answer computed after it asked.
 */
export function acceptedAgeMs(request: Request): number {
  const cc = request.headers.get("cache-control") ?? "";
  if (/(^|,)\s*no-cache\s*(,|$)/i.test(cc)) return 0;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,9})"?\s*(?:,|$)/i.exec(cc);
  return m ? Number(m[1]) * 1000 : 0;
}
