import { hasRole, isRole, ROLES, type Role, type ViewerInfo } from "@/lib/roles";
import { prisma } from "@/lib/server/db";
import { AuthError, ForbiddenError } from "@/lib/server/errors";
import { verifyToken } from "@/lib/server/repositories/tokens";

import { getAuth, publicOrigins } from "./better-auth";
import { bearerToken, hasSessionCookie } from "./credentials";
import { crossSiteReason } from "./origin";

export { ROLES, hasRole, type Role };

/**
 * Who is making a request: a signed-in person (kind "user", their role), or a worker token
 * (kind "worker", role "viewer": workers may read the API, never decide).
 */
export type Viewer = ViewerInfo;

export { ForbiddenError };

/** Message of the 401 answer. */
export const SIGN_IN_MESSAGE = "sign in, or send a worker token (Authorization: Bearer pw_…)";

/**
 * Resolves the viewer of a request from its headers: `Authorization: Bearer pw_…` (a worker
 * token; when present it alone decides, a bad one gives null even with a cookie; other
 * Authorization schemes are ignored), else the
 * better-auth session cookie. Null when neither is valid, the session expired, or the account
 * is disabled.
 * @throws ForbiddenError when a cookie comes with another site's Origin (CSRF, any method).
 */
export async function getViewer(headers: Headers): Promise<Viewer | null> {
  const token = bearerToken(headers);
  if (token !== null) {
    const principal = token ? await verifyToken(prisma(), token) : null;
    return principal
      ? {
          kind: "worker",
          id: `token:${principal.tokenId}`,
          name: principal.hostName,
          email: null,
          role: "viewer",
        }
      : null;
  }
  if (!hasSessionCookie(headers)) return null;
  const reason = crossSiteReason(headers, undefined, publicOrigins());
  if (reason) throw new ForbiddenError(reason);
  const auth = await getAuth();
  const result = await auth.api.getSession({ headers });
  if (!result || result.user.disabledAt) return null;
  const { user } = result;
  return {
    kind: "user",
    id: user.id,
    name: user.name,
    email: user.email,
    role: isRole(user.role) ? user.role : "viewer",
  };
}

/**
 * The viewer, when they hold at least `role`. Pass the Request for state-changing routes: a
 * cookie-authenticated POST/PUT/PATCH/DELETE must then also be same-origin (Origin header, or
 * `Sec-Fetch-Site: same-origin`); bearer tokens need no such check.
 * @throws AuthError (401) when nobody is signed in; ForbiddenError (403) when the role is too low
 *   or the request is cross-site.
 */
export async function requireRole(source: Request | Headers, role: Role): Promise<Viewer> {
  const request = "method" in source ? source : null;
  const headers = request ? request.headers : (source as Headers);
  const viewer = await getViewer(headers);
  if (!viewer) throw new AuthError(SIGN_IN_MESSAGE);
  if (viewer.kind === "user" && request) {
    const reason = crossSiteReason(headers, request.method, publicOrigins());
    if (reason) throw new ForbiddenError(reason);
  }
  if (!hasRole(viewer.role, role))
    throw new ForbiddenError(`this needs the ${role} role; you are ${viewer.role}`);
  return viewer;
}

/**
 * The better-auth session a request's cookie names: its id and person, or null (no cookie,
 * expired, unknown). No Origin check here: callers that change state check it themselves.
 */
export async function currentSession(
  headers: Headers,
): Promise<{ id: string; userId: string } | null> {
  if (!hasSessionCookie(headers)) return null;
  const result = await (await getAuth()).api.getSession({ headers });
  return result ? { id: result.session.id, userId: result.user.id } : null;
}
