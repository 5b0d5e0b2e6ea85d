import type { z } from "zod";

import { describeIssues, JsonSyntaxError, parseWireJson } from "@/lib/protocol";
import { stringifyApiJson } from "@/lib/protocol/api-json";

import { requireRole, type Role, type Viewer } from "./auth/viewer";
import { readBodyText } from "./body";
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
 * Wraps a route handler so it runs only for a viewer holding at least `role` (401 without
 * credentials, 403 with too low a role or a cross-site cookie request), inside {@link handle}.
 * Reads use "viewer" (a session or any valid worker token); people's mutations "approver"/"admin".
 * Usage: `export const GET = withViewer("viewer", async (request, viewer, ctx) => json(...))`.
 */
export function withViewer<Ctx = unknown>(
  role: Role,
  fn: (request: Request, viewer: Viewer, ctx: Ctx) => Promise<Response>,
): (request: Request, ctx: Ctx) => Promise<Response> {
  return (request, ctx) => handle(async () => fn(request, await requireRole(request, role), ctx));
}

/** Largest JSON body of the API routes other than /api/ingest: 1 MiB. */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON request body and validates it with `schema`. Returns the data, or the error
 * Response to send: 415 unless `Content-Type: application/json` (a cross-site HTML form cannot
 * send that without a CORS preflight), 413 `body_too_large` over 1 MiB (cut while reading),
 * 400 `too_deep` when nested over 64 levels, 400 `invalid_json` / `invalid_body`.
 */
export async function parseJsonBody<T>(
  request: Request,
  schema: z.ZodType<T>,
): Promise<T | Response> {
  if (!request.headers.get("content-type")?.toLowerCase().startsWith("application/json")) {
    return errorResponse(415, "unsupported_media_type", "send the body as application/json");
  }
  let body: unknown;
  try {
    const parsed = parseWireJson(await readBodyText(request, MAX_API_BODY_BYTES));
    if (parsed.truncated)
      return errorResponse(400, "too_deep", "the body is nested deeper than 64 levels");
    body = parsed.value;
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err.status, err.code, err.message);
    if (err instanceof JsonSyntaxError)
      return errorResponse(400, "invalid_json", "the body is not JSON");
    throw err;
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) return errorResponse(400, "invalid_body", describeIssues(parsed.error));
  return parsed.data;
}
