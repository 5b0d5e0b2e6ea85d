import type { z } from "zod";
import { describeIssues, stringifyJson } from "@/lib/protocol";
import { requireRole, type Role, type Viewer } from "./auth/viewer";
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

/**
 * Reads a JSON request body and validates it with `schema`. Returns the data, or the error
 * Response to send: 415 unless `Content-Type: application/json` (a cross-site HTML form cannot
 * send that without a CORS preflight), 400 `invalid_json` / `invalid_body`.
 */
export async function parseJsonBody<T>(request: Request, schema: z.ZodType<T>): Promise<T | Response> {
  if (!request.headers.get("content-type")?.toLowerCase().startsWith("application/json")) {
    return errorResponse(415, "unsupported_media_type", "send the body as application/json");
  }
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return errorResponse(400, "invalid_json", "the body is not JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) return errorResponse(400, "invalid_body", describeIssues(parsed.error));
  return parsed.data;
}
