import { AppError, AuthError } from "@/lib/server/errors";

/** Roles, in increasing power: viewers read, approvers also decide plans and edit runs, admins manage people and tokens. */
export const ROLES = ["viewer", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** Who is making a request: a signed-in person, or a worker token (which may read). */
export interface Viewer {
  kind: "user" | "worker";
  id: string;
  /** Display name: the person's name, or the worker's host. */
  name: string;
  role: Role;
}

/** The viewer lacks the role an action needs (HTTP 403). */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super("forbidden", message, 403);
  }
}

/**
 * Resolves the viewer of a request from its headers (session cookie or bearer token).
 *
 * NOTE: sign-in is not built yet (issue 4, "People and roles"). Until it lands every request is
 * an anonymous approver, so the dashboard keeps working as before; pages and routes already ask
 * this function, so enforcing roles later changes this file only.
 */
export async function getViewer(_headers: Headers): Promise<Viewer | null> {
  return { kind: "user", id: "anonymous", name: "anonymous", role: "approver" };
}

/**
 * The viewer, when they hold at least `role`.
 * @throws AuthError (401) when nobody is signed in; ForbiddenError (403) when the role is too low.
 */
export async function requireRole(headers: Headers, role: Role): Promise<Viewer> {
  const viewer = await getViewer(headers);
  if (!viewer) throw new AuthError("sign in first");
  if (ROLES.indexOf(viewer.role) < ROLES.indexOf(role)) throw new ForbiddenError(`this needs the ${role} role; you are ${viewer.role}`);
  return viewer;
}
