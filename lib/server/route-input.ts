import type { z } from "zod";

import {
  describeInputIssues,
  searchParamsInput,
  type RouteContract,
  type RouteInput,
} from "@/lib/api/contract";
import { describeIssues, JsonSyntaxError, parseWireJson } from "@/lib/protocol";

import { requireRole, type Role, type Viewer } from "./auth/viewer";
import { readBodyText } from "./body";
import { InputError } from "./errors";
import { handle } from "./http";

/** Largest JSON body of the API routes other than /api/ingest: 1 MiB (the custom server cuts at the same limit first). */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/** The second argument Next passes a route handler: its path parameters. */
export interface RouteContext {
  params: Promise<Record<string, string | string[]>>;
}

/**
 * Parses a request's input with its route's contract, once: path parameters, then the query,
 * then the JSON body (each only when the contract has it).
 * @throws InputError (mapped to the error body of docs/api.md by `handle`): 400 `invalid_query`
 *   for a bad path parameter (the message is the issue itself, e.g. "run id must be a positive
 *   integer") or query (issues named by parameter), and for the body what {@link readJsonBody}
 *   throws.
 */
export async function readInput<C extends RouteContract>(
  request: Request,
  ctx: RouteContext | undefined,
  contract: C,
): Promise<RouteInput<C>> {
  let params: unknown;
  let query: unknown;
  let body: unknown;
  if (contract.params) {
    const parsed = contract.params.safeParse((await ctx?.params) ?? {});
    if (!parsed.success)
      throw new InputError("invalid_query", describeInputIssues(parsed.error, "path"));
    params = parsed.data;
  }
  if (contract.query) {
    const sp = new URL(request.url).searchParams;
    const parsed = contract.query.safeParse(searchParamsInput(sp, contract.queryArrays));
    if (!parsed.success)
      throw new InputError("invalid_query", describeInputIssues(parsed.error, "query"));
    query = parsed.data;
  }
  if (contract.body) body = await readJsonBody(request, contract.body);
  return { params, query, body } as RouteInput<C>;
}

/**
 * Reads a JSON request body and validates it with `schema`.
 * @throws InputError 415 `unsupported_media_type` unless `Content-Type: application/json` (a
 *   cross-site HTML form cannot send that without a CORS preflight), 400 `too_deep` when nested
 *   over 64 levels, 400 `invalid_json` / `invalid_body`;
 *   PayloadTooLargeError 413 `body_too_large` over 1 MiB (cut while reading).
 */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<z.output<S>> {
  if (!request.headers.get("content-type")?.toLowerCase().startsWith("application/json"))
    throw new InputError("unsupported_media_type", "send the body as application/json", 415);
  let value: unknown;
  try {
    const parsed = parseWireJson(await readBodyText(request, MAX_API_BODY_BYTES));
    if (parsed.truncated)
      throw new InputError("too_deep", "the body is nested deeper than 64 levels");
    value = parsed.value;
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      throw new InputError("invalid_json", "the body is not JSON");
    throw err;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InputError("invalid_body", describeIssues(parsed.error));
  return parsed.data;
}

/**
 * Wraps a route handler so it runs only for a viewer holding at least `role` (401 without
 * credentials, 403 with too low a role or a cross-site cookie request), with its input parsed by
 * `contract` first ({@link readInput}; bad input answers 400, 413 or 415 with the error body of
 * docs/api.md), inside `handle` (typed errors mapped to their status in one place).
 * Reads use "viewer" (a session or any valid worker token); people's mutations "approver"/"admin".
 * Usage:
 * `export const GET = apiRoute("viewer", runMetricsRoute, async ({ params, query }) => json(...))`.
 */
export function apiRoute<C extends RouteContract>(
  role: Role,
  contract: C,
  fn: (input: RouteInput<C>, request: Request, viewer: Viewer) => Promise<Response>,
): (request: Request, ctx: RouteContext) => Promise<Response> {
  return (request, ctx) =>
    handle(async () => {
      const viewer = await requireRole(request, role);
      return fn(await readInput(request, ctx, contract), request, viewer);
    });
}
