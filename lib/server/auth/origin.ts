/**
 * Same-origin checks for cookie-authenticated requests (CSRF protection for our own routes;
 * better-auth applies its own, equivalent check to /api/auth/*).
 *
 * Why the Host header and not a configured base URL: Pitwall is reached under several names
 * (localhost:8080, kpro5:8080, a TLS proxy's name). A browser cannot forge Host, Origin or
 * X-Forwarded-* on a cross-site request (the latter would need a CORS preflight we never grant),
 * so "Origin's host equals the host the request was sent to" is sound. Why not SameSite alone:
 * another service on the same machine (kpro5:8888) is *same-site* with kpro5:8080, so a Lax
 * cookie would ride along on its forged requests; the Origin check tells them apart.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Hosts (`name:port`, lower-case) this request was addressed to: Host and X-Forwarded-Host. */
export function requestHosts(headers: Headers): string[] {
  const hosts: string[] = [];
  const host = headers.get("host");
  if (host) hosts.push(host.trim().toLowerCase());
  const forwarded = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  if (forwarded) hosts.push(forwarded.toLowerCase());
  return hosts;
}

/**
 * The origin a browser on this request's own site would send (`http(s)://host[:port]`), from
 * X-Forwarded-Proto/-Host when a proxy set them, else the Host header; null without a host.
 */
export function requestOrigin(headers: Headers): string | null {
  const host =
    headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host")?.trim();
  if (!host) return null;
  const proto =
    headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https"
      ? "https"
      : "http";
  return `${proto}://${host}`;
}

/** True when `origin` (an Origin header value) is this request's own site or one of `trusted` (exact origins). */
export function isSameOrigin(
  origin: string,
  headers: Headers,
  trusted: readonly string[] = [],
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, privacy redirects) and garbage
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (trusted.includes(url.origin)) return true;
  return requestHosts(headers).includes(url.host.toLowerCase());
}

/**
 * Why a cookie-authenticated request must be refused as cross-site, or null when it may proceed.
 * With an Origin header it must be this site's; without one, a state-changing method (POST, PUT,
 * PATCH, DELETE) is accepted only with `Sec-Fetch-Site: same-origin` (every current browser sends
 * Origin on such requests, so a missing one means an old or unusual client). `method` unknown
 * (only headers at hand): only the Origin rule applies.
 */
export function crossSiteReason(
  headers: Headers,
  method: string | undefined,
  trusted: readonly string[] = [],
): string | null {
  const origin = headers.get("origin");
  if (origin !== null)
    return isSameOrigin(origin, headers, trusted)
      ? null
      : `cross-site request refused (Origin ${origin} is not this site)`;
  if (method === undefined || SAFE_METHODS.has(method.toUpperCase())) return null;
  if (headers.get("sec-fetch-site") === "same-origin") return null;
  return "cross-site request refused (send an Origin header, as browsers do)";
}
