import { reviveApiJson } from "@/lib/protocol/api-json";

import type { RouteContract } from "./contract";

/**
 * The browser's transport to the Pitwall API (typed fetchers: lib/api/fetchers/<resource>.ts; their
 * react-query keys: lib/api/query-keys.ts). The API writes non-finite numbers as the
 * tagged objects `{"$num":"NaN"}` / `{"$num":"Infinity"}` / `{"$num":"-Infinity"}` (JSON has no such
 * numbers; lib/protocol/api-json.ts); only those are turned back into numbers here, so components
 * see the same values a server component gets from the repository, and a string stays a string.
 */

/** A non-2xx API answer: HTTP `status` plus the body's `error.code` / `error.message` when present. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** JSON.parse reviver of API JSON: the tagged non-finite numbers (and escaped objects) only; see lib/protocol/api-json.ts. */
export const reviveNonFinite = reviveApiJson;

/** Parses API JSON text, reviving tagged non-finite numbers. @throws SyntaxError for invalid JSON. */
export function parseApiJson<T>(text: string): T {
  return JSON.parse(text, reviveApiJson) as T;
}

/**
 * GETs an API path and parses the body with {@link reviveNonFinite}. `maxAgeS`: the reader
 * accepts an answer shared with other viewers up to that old (`Cache-Control: max-age`; live
 * refetches of read models the server shares, such as the overview).
 * @throws ApiError for non-2xx answers; TypeError when the network fails.
 */
export async function fetchJson<T>(
  path: string,
  init?: { signal?: AbortSignal; maxAgeS?: number },
): Promise<T> {
  const res = await fetch(path, {
    headers: {
      accept: "application/json",
      ...(init?.maxAgeS ? { "cache-control": `max-age=${init.maxAgeS}` } : {}),
    },
    cache: "no-store",
    signal: init?.signal,
  });
  return readApiResponse<T>(res);
}

/**
 * Sends a JSON body (`POST`/`PATCH`/`PUT`/`DELETE`) to an API path with the session cookie and
 * parses the answer like {@link fetchJson}.
 * @throws ApiError for non-2xx answers (403 without the role, 400 `invalid_body`…); TypeError when the network fails.
 */
export async function sendJson<T>(
  method: "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { "content-type": "application/json", accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return readApiResponse<T>(res);
}

async function readApiResponse<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) {
    let code = "http_error";
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = parseApiJson<{ error?: { code?: string; message?: string } }>(text);
      code = body.error?.code ?? code;
      message = body.error?.message ?? message;
    } catch {
      // Not JSON (proxy error page): keep the status line.
    }
    throw new ApiError(res.status, code, message);
  }
  // 204 No Content (a DELETE): nothing to parse.
  if (res.status === 204) return undefined as T;
  return parseApiJson<T>(text);
}

/** A query-string value: absent (`undefined`, `null`, `""`: left out), one value, or repeated. */
export type QueryValue =
  string | number | boolean | null | undefined | readonly (string | number)[];

/**
 * The URL of a contract's route (`GET /api/runs/:id/metrics` + `{id: 42}` + `{key: ["loss"]}` →
 * `/api/runs/42/metrics?key=loss`): path parameters percent-encoded, absent query values left out,
 * arrays as repeated parameters.
 * @throws Error when the route names a path parameter `params` lacks.
 */
export function apiPath(
  contract: RouteContract,
  params: Record<string, string | number> = {},
  query: Record<string, QueryValue> = {},
): string {
  const template = contract.route.split(" ")[1] ?? "";
  const path = template.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${contract.route}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const sp = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) for (const v of value) sp.append(key, String(v));
    else sp.set(key, String(value));
  }
  const search = sp.toString();
  return search ? `${path}?${search}` : path;
}

/** `path` with a page's time-range parameters (`range=6h` or `from&to`, as the URL has them). */
export function withRange(path: string, rangeSearch: string): string {
  return rangeSearch ? `${path}?${rangeSearch}` : path;
}
