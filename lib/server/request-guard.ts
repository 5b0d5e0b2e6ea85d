import type { IncomingMessage, ServerResponse } from "node:http";

import { MAX_FRAME_BYTES } from "@/lib/protocol/primitives";

/**
 * Checks every HTTP request gets in the custom server before Next.js sees it (Next buffers a whole
 * body in memory when a proxy/middleware exists, and route handlers read whatever arrives), so
 * they hold for every route, page and asset alike:
 * - a body size limit per route family ({@link bodyLimitFor}), enforced on the declared
 *   Content-Length at once and on a chunked body as it streams: the body is cut at the limit,
 *   413 `body_too_large` (`batch_too_large` on /api/ingest) is answered and the connection closed, so at most the limit is ever held;
 * - no NUL byte in the path or query (`%00` or raw): 400 `invalid_url`;
 * - anti-framing and MIME-sniffing headers on every response ({@link SECURITY_HEADERS}).
 */

/** Headers set on every HTTP response: no framing by any site (clickjacking), no MIME sniffing. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
};

/** A route family's body limit. */
export interface BodyLimit {
  /** Route family, as docs/deploy.md names it. */
  family: "auth" | "ingest" | "api" | "pages";
  /** Largest body accepted, in bytes. */
  maxBytes: number;
}

/** Body limits per route family, in bytes (docs/deploy.md). */
export const BODY_LIMITS = {
  /** /api/auth/*: sign-in and sign-out bodies are tiny. */
  auth: 64 * 1024,
  /** /api/ingest: a batch of up to 16 frames' worth (MAX_FRAME_BYTES each). */
  ingest: 16 * MAX_FRAME_BYTES,
  /** Every other /api/* route (the routes themselves cut JSON bodies at 1 MiB too). */
  api: 1024 * 1024,
  /** Pages, /healthz, /metrics, assets: nothing reads a body; 64 KiB leaves room for forms. */
  pages: 64 * 1024,
} as const;

/** The body limit of a request path (pathname only, no query). */
export function bodyLimitFor(pathname: string): BodyLimit {
  const p = pathname.toLowerCase().replace(/\/{2,}/g, "/");
  if (p === "/api/auth" || p.startsWith("/api/auth/"))
    return { family: "auth", maxBytes: BODY_LIMITS.auth };
  if (p === "/api/ingest" || p.startsWith("/api/ingest/"))
    return { family: "ingest", maxBytes: BODY_LIMITS.ingest };
  if (p === "/api" || p.startsWith("/api/")) return { family: "api", maxBytes: BODY_LIMITS.api };
  return { family: "pages", maxBytes: BODY_LIMITS.pages };
}

/** True when a request target (path + query, as sent) holds a NUL byte, raw or percent-encoded. */
export function hasNulByte(url: string): boolean {
  return url.includes("\0") || /%00/i.test(url);
}

/**
 * Writes an error answer. No `Connection: close` on a body cut while streaming: with it Node
 * destroys the socket as soon as the answer is written, and a socket closed with unread request
 * bytes sends a reset that can wipe out the answer; lingerThenClose closes it instead.
 */
function answer(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  close = true,
): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(body);
}

/**
 * Applies the checks to one request. Returns false when it answered the request itself (400/413):
 * the caller must not hand it on. Otherwise the security headers are set and, while Next reads the
 * body, every chunk is counted as the HTTP parser delivers it (by wrapping the request's `push`,
 * the one place body bytes enter the stream): the chunk that crosses the limit and all after it
 * are dropped, 413 goes out (when nothing was answered yet) and the socket is closed
 * (see lingerThenClose).
 */
export function guardRequest(req: IncomingMessage, res: ServerResponse): boolean {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  const url = req.url ?? "/";
  if (hasNulByte(url)) {
    answer(res, 400, "invalid_url", "the URL holds a NUL byte (%00)");
    return false;
  }
  const limit = bodyLimitFor(url.split("?")[0] ?? "/");
  const tooLarge = `body over ${limit.maxBytes} bytes (the limit of ${limit.family} routes); split it`;
  // /api/ingest keeps the code its clients split batches on (docs/protocol.md).
  const code = limit.family === "ingest" ? "batch_too_large" : "body_too_large";
  const declared = Number(req.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > limit.maxBytes) {
    answer(res, 413, code, tooLarge);
    res.once("finish", () => lingerThenClose(req));
    return false;
  }
  let received = 0;
  let cut = false;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    // After the cut what still arrives is read and dropped (never buffered) until the close.
    if (cut) return true;
    if (chunk !== null && chunk !== undefined) received += (chunk as Buffer).length;
    if (received <= limit.maxBytes) return push(chunk, encoding);
    cut = true;
    if (res.headersSent) lingerThenClose(req);
    else {
      answer(res, 413, code, tooLarge, false);
      res.once("finish", () => lingerThenClose(req));
    }
    return true;
  };
  return true;
}

/** How long a refused upload may keep sending (dropped) after its 413, in ms. */
const LINGER_MS = 1000;

/**
 * Closes a refused upload's connection in two steps: first our side only (FIN after the answer),
 * still reading and dropping what the client sends, then the whole socket a second later.
 * Destroying a socket that holds unread request bytes makes the kernel send a reset at once,
 * which can wipe out the 413 before the client has read it.
 */
function lingerThenClose(req: IncomingMessage): void {
  req.socket.end();
  req.socket.resume();
  setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
}
