/**
 * Several Pitwall server URLs for one client (`PITWALL_URL=http://a:8080,http://b:8080`): parsing
 * the list, and HTTP requests that fail over from one instance to the next. Instances behind the
 * list share one PostgreSQL, so a frame sent again to another instance under the same id is
 * acknowledged without being applied twice (the dedupe table is in the database).
 */

/** A comma-separated URL list, or a list of URLs (each entry may itself hold commas). */
export type ServerUrls = string | readonly string[];

/**
 * The server URLs of `value`, in order, each an absolute http(s) or ws(s) URL without trailing
 * slashes; blanks and repeats are dropped.
 * @throws TypeError naming the entry that is not such a URL, or when the list is empty.
 */
export function parseServerUrls(value: ServerUrls): string[] {
  const parts = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(","));
  const urls: string[] = [];
  for (const raw of parts) {
    const text = raw.trim();
    if (text === "") continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new TypeError(
        `'${text}' is not a URL (expected e.g. http://host:8080; several separated by commas)`,
      );
    }
    if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol))
      throw new TypeError(`'${text}' is not an http(s) URL`);
    const clean = text.replace(/\/+$/, "");
    if (!urls.includes(clean)) urls.push(clean);
  }
  if (urls.length === 0) throw new TypeError("no Pitwall server URL given");
  return urls;
}

/** Whether an HTTP status means "this instance cannot serve now; another may" (5xx). 4xx never fails over. */
export function isFailoverStatus(status: number): boolean {
  return status >= 500;
}

/** A failed attempt on one URL, for the error message when every URL failed. */
interface Attempt {
  url: string;
  reason: string;
}

/** Thrown by {@link fetchWithFailover} when no URL gave an answer other than a 5xx. */
export class AllServersFailedError extends Error {
  constructor(
    readonly attempts: readonly Attempt[],
    /** The last 5xx response, when the last failure was one (its body unread). */
    readonly lastResponse: Response | null,
  ) {
    super(
      `no Pitwall server answered: ${attempts.map((a) => `${a.url} (${a.reason})`).join("; ")}`,
    );
    this.name = "AllServersFailedError";
  }
}

/** The instance that last answered, per URL list, so the next request starts there. */
const preferred = new Map<string, string>();

/** Options of {@link fetchWithFailover}. */
export interface FailoverFetchOptions {
  /** Per-attempt time limit in ms (headers received); default 60 s. */
  timeoutMs?: number;
}

/**
 * `fetch(base + path)` on each URL of `urls` in turn, starting with the one that last answered,
 * until one answers with a status below 500. A connection error, a timeout or a 5xx moves on to
 * the next URL; a 4xx is an answer (it would be the same on every instance) and is returned.
 * Only for requests that are safe to repeat: reads, and ingest posts whose frames carry ids.
 * @returns the response and the base URL that gave it.
 * @throws AllServersFailedError when every URL failed (network, timeout or 5xx).
 */
export async function fetchWithFailover(
  urls: ServerUrls,
  path: string,
  init: RequestInit = {},
  opts: FailoverFetchOptions = {},
): Promise<{ res: Response; baseUrl: string }> {
  const list = parseServerUrls(urls);
  const listKey = list.join(",");
  const start = Math.max(0, list.indexOf(preferred.get(listKey) ?? list[0]!));
  const attempts: Attempt[] = [];
  let lastResponse: Response | null = null;
  for (let k = 0; k < list.length; k++) {
    const baseUrl = list[(start + k) % list.length]!;
    lastResponse = null;
    try {
      const res = await fetch(joinUrl(baseUrl, path), {
        ...init,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
      });
      if (!isFailoverStatus(res.status)) {
        preferred.set(listKey, baseUrl);
        return { res, baseUrl };
      }
      attempts.push({ url: baseUrl, reason: `HTTP ${res.status}` });
      lastResponse = res;
      if (k < list.length - 1) await res.body?.cancel();
    } catch (err) {
      const e = err as Error & { cause?: unknown };
      const reason =
        e.name === "TimeoutError"
          ? `no answer within ${opts.timeoutMs ?? 60_000} ms`
          : String((e.cause as Error | undefined)?.message ?? e.cause ?? e.message);
      attempts.push({ url: baseUrl, reason });
    }
  }
  throw new AllServersFailedError(attempts, lastResponse);
}

/** `base` + absolute `path`, keeping a base path (reverse-proxy prefix) of `base`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path.startsWith("/") ? path : `/${path}`}`;
}
