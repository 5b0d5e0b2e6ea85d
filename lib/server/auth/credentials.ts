import { getSessionCookie } from "better-auth/cookies";

/**
 * Spotting credentials on a request without touching the database (also used by proxy.ts).
 */

/** Cookie names start with this: `pitwall.session_token` (`__Secure-pitwall.session_token` over https). */
export const COOKIE_PREFIX = "pitwall";

/** True when the request carries a session cookie at all (signature and expiry not checked). */
export function hasSessionCookie(headers: Headers): boolean {
  return getSessionCookie(headers, { cookiePrefix: COOKIE_PREFIX }) !== null;
}

/**
 * The token of an `Authorization: Bearer <token>` header; null without one. Other schemes (e.g.
 * `Basic` from a proxy's own password prompt) are not ours and are ignored, so the session cookie
 * still counts behind such a proxy. A Bearer header with no token gives "" (present but invalid).
 */
export function bearerToken(headers: Headers): string | null {
  const value = headers.get("authorization");
  if (value === null || !/^Bearer(\s|$)/i.test(value.trim())) return null;
  return value.trim().slice("Bearer".length).trim();
}
