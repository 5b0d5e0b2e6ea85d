import { z } from "zod";

/**
 * The shape of one API route's contract (lib/api/<resource>.ts): what the route reads from its
 * path, its query string and its JSON body, each as a zod schema. The route parses its input
 * with it once (lib/server/route-input.ts `readInput`), the browser's fetchers (lib/api/client.ts)
 * build their URLs from the same types, and docs/api.md describes the same fields. The answer's
 * type sits next to it as `<Name>Response`.
 */
export interface RouteContract {
  /** Method and path, as docs/api.md names the route (`GET /api/runs/:id/metrics`). */
  readonly route: string;
  /** Path parameters (`{ id: "42" }` as Next passes them). Bad: 400 `invalid_query`. */
  readonly params?: z.ZodType;
  /** Query parameters, read by {@link searchParamsInput}. Bad: 400 `invalid_query`. */
  readonly query?: z.ZodType;
  /** Query parameters that may repeat (`?key=a&key=b`): handed to `query` as arrays of strings. */
  readonly queryArrays?: readonly string[];
  /** JSON body (415 unless application/json, 413 over 1 MiB, 400 `too_deep`/`invalid_json`/`invalid_body`). */
  readonly body?: z.ZodType;
}

/** Declares a route contract; only for type inference (returns its argument). */
export function defineRoute<const C extends RouteContract>(contract: C): C {
  return contract;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a route gets from {@link RouteContract}: the parsed path parameters, query and body. */
export interface RouteInput<C extends RouteContract> {
  params: Out<C["params"]>;
  query: Out<C["query"]>;
  body: Out<C["body"]>;
}

/** The query a fetcher sends for a contract (its schema's input side). */
export type QueryOf<C extends RouteContract> = C["query"] extends z.ZodType
  ? z.input<C["query"]>
  : never;

/** The body a fetcher sends for a contract (its schema's input side). */
export type BodyOf<C extends RouteContract> = C["body"] extends z.ZodType
  ? z.input<C["body"]>
  : never;

/**
 * The query string as the object a contract's `query` schema parses: every parameter once (the
 * first value when repeated), the `arrays` ones as every value in order (absent when none).
 */
export function searchParamsInput(
  sp: URLSearchParams,
  arrays: readonly string[] = [],
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(sp.keys())) {
    if (arrays.includes(key)) out[key] = sp.getAll(key);
    else out[key] = sp.get(key) ?? "";
  }
  return out;
}

/**
 * A positive integer id in a path (`/api/runs/42`): digits only, at most `max` (default 2^53-1;
 * 2^31-1 for tables with 32-bit ids). Bad: the issue reads "<noun> id must be a positive integer".
 */
export function idParam(noun: string, max: number = Number.MAX_SAFE_INTEGER) {
  const message = `${noun} id must be a positive integer`;
  return z
    .string()
    .regex(/^\d{1,16}$/, message)
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n > 0 && n <= max, message);
}

/** Path parameters `{ id }` of a route about one numbered thing (see {@link idParam}). */
export function idParams(noun: string, max?: number) {
  return z.object({ id: idParam(noun, max) });
}

/** An empty query parameter (`?dataset=`) read as absent. */
export function emptyAsAbsent<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
}

/**
 * A zod error of a request input as one message: up to 5 issues, each "<param>: <message>"
 * (the bare message when it already names the parameter, e.g. "run id must be a
 * positive integer"; `root` names an issue about the whole input: "query", "body").
 */
export function describeInputIssues(error: z.ZodError, root: string): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : root;
    const name = String(issue.path.at(-1) ?? "");
    const named = name !== "" && new RegExp(`\\b${name}\\b`).test(issue.message);
    return named ? issue.message : `${path}: ${issue.message}`;
  });
  if (error.issues.length > 5) parts.push(`and ${error.issues.length - 5} more`);
  return parts.join("; ");
}

/** Longest accepted long-poll of the decision routes, in seconds. */
export const MAX_WAIT_S = 120;

/** Query `wait` of a long-poll: seconds ≥ 0 (held at most {@link MAX_WAIT_S}); absent: 0. */
export const waitQuery = z.object({
  wait: z.coerce
    .number({ error: "wait must be a number of seconds ≥ 0" })
    .min(0, "wait must be a number of seconds ≥ 0")
    .default(0),
});
