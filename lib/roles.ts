/**
 * Roles of people, shared by the server (enforcement) and the browser (what to show). No server
 * dependencies: client components import this file.
 */

/** Roles, in increasing power: viewers read, approvers also decide plans and edit runs, admins manage people and tokens. */
export const ROLES = ["viewer", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** True when `role` is at least `needed` (admin ≥ approver ≥ viewer). */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** Type guard for a role name from user input. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Who is looking at a page, as the browser may know it (never secrets). */
export interface ViewerInfo {
  kind: "user" | "worker";
  id: string;
  /** The person's name, or the worker's host. */
  name: string;
  /** The person's email; null for workers. */
  email: string | null;
  role: Role;
}

/**
 * A `next` target after sign-in: a same-site path only ("/runs?x=1"), never another origin
 * ("//evil.example", "/\\evil", "https://…"); anything else becomes "/".
 */
export function safeNextPath(next: string | null | undefined): string {
  if (
    !next ||
    !next.startsWith("/") ||
    next.startsWith("//") ||
    next.includes("\\") ||
    /[\u0000-\u001f]/.test(next)
  )
    return "/";
  // Never loop back into the sign-in flow itself.
  if (/^\/(sign-in|setup)(\/|\?|$)/.test(next)) return "/";
  return next;
}
