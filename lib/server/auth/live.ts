import type { IncomingHttpHeaders } from "node:http";

import { publicOrigins } from "./better-auth";
import { bearerToken } from "./credentials";
import { crossSiteReason } from "./origin";
import { ForbiddenError, getViewer, type Viewer } from "./viewer";

/** Outcome of checking a `/ws/live` upgrade: the viewer, or the HTTP status line and body to refuse with. */
export type LiveUpgradeResult =
  | { ok: true; viewer: Viewer }
  | { ok: false; status: "401 Unauthorized" | "403 Forbidden"; message: string };

/** Node's raw request headers as a fetch `Headers` (repeated headers joined as Node does). */
export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(name === "cookie" ? "; " : ", ") : value);
  }
  return headers;
}

/**
 * Decides a `/ws/live` upgrade during the handshake (no socket is opened on refusal): a valid
 * session cookie (or a worker token) is required, and a browser's Origin must be this site —
 * cookies ride along on cross-site WebSocket handshakes from same-site pages (another port of
 * the same host), so SameSite alone does not stop them.
 * @throws only when the database is unreachable (the caller answers 503).
 */
export async function authenticateLiveUpgrade(
  raw: IncomingHttpHeaders,
): Promise<LiveUpgradeResult> {
  const headers = toHeaders(raw);
  if (bearerToken(headers) === null) {
    const reason = crossSiteReason(headers, undefined, publicOrigins());
    if (reason) return { ok: false, status: "403 Forbidden", message: reason };
  }
  try {
    const viewer = await getViewer(headers);
    return viewer
      ? { ok: true, viewer }
      : { ok: false, status: "401 Unauthorized", message: "sign in first" };
  } catch (err) {
    if (err instanceof ForbiddenError)
      return { ok: false, status: "403 Forbidden", message: err.message };
    throw err;
  }
}
