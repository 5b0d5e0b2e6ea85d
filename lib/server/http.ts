import { stringifyJson } from "@/lib/protocol";
import { AppError } from "./errors";
import { logger } from "./logger";

/**
 * A JSON response written the Pitwall way: non-finite numbers as "NaN"/"Infinity"/"-Infinity",
 * bigints as decimal strings.
 */
export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(stringifyJson(data), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** Error body of every API error: `{ error: { code, message } }`. */
export function errorResponse(status: number, code: string, message: string): Response {
  return json({ error: { code, message } }, status);
}

/**
 * Runs a route handler body and maps typed errors to HTTP responses in one place:
 * AppError subclasses to their status/code; anything else to 500 (logged).
 */
export async function handle(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err.status, err.code, err.message);
    logger.error({ err }, "request failed");
    return errorResponse(500, "internal", "internal server error");
  }
}
