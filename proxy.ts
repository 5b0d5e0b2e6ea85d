import { NextResponse, type NextRequest } from "next/server";

import { bearerToken, hasSessionCookie } from "@/lib/server/auth/credentials";
import { requestOrigin } from "@/lib/server/auth/origin";

/** Same value as PATH_HEADER in lib/server/auth/page.ts (not imported: that module loads the database). */
const PATH_HEADER = "x-pitwall-path";

/**
 * Next.js proxy (formerly middleware) for pages — an optimistic first gate, not the security
 * boundary: a page request without any session cookie (and no bearer token) is sent to
 * /sign-in?next=… at once, and every page request learns its own path (header x-pitwall-path) for
 * that `next`. The real check (signature, expiry, disabled account, fresh install → /setup) is
 * requirePageViewer() in each page, and apiRoute() (lib/server/route-input.ts) or requireRole() in each API route.
 */
export function proxy(request: NextRequest): NextResponse {
  const path = request.nextUrl.pathname + request.nextUrl.search;
  if (!hasSessionCookie(request.headers) && bearerToken(request.headers) === null) {
    // request.url carries the listening address (0.0.0.0:8080); redirect to the name the browser used.
    const origin = requestOrigin(request.headers) ?? request.nextUrl.origin;
    const target = new URL("/sign-in", origin);
    if (path !== "/") target.searchParams.set("next", path);
    return NextResponse.redirect(target, 307);
  }
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, path);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: not the API (it answers 401 itself), the auth pages, the Python client's wheel
  // (/python, anonymous on purpose: pip on a GPU host has no session), Next's assets, health and
  // Prometheus endpoints, or files from public/ (the service worker and icons of the installable
  // app, and its manifest, which browsers fetch without cookies).
  matcher: [
    "/((?!api/|_next/|python|sign-in|setup|healthz|metrics|favicon\\.ico|icon\\.svg|robots\\.txt|ws/|sw\\.js|manifest\\.webmanifest|icons/).*)",
  ],
};
