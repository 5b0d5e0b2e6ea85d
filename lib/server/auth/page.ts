import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";

import { safeNextPath } from "@/lib/roles";
import { prisma } from "@/lib/server/db";
import { hasUsers } from "@/lib/server/repositories/users";

import { getViewer, type Viewer } from "./viewer";

/** Request header set by proxy.ts: the path + query the browser asked for (for `?next=`). */
export const PATH_HEADER = "x-pitwall-path";

/** The viewer of the page being rendered (once per request, shared by layout and page). */
export const currentViewer = cache(async (): Promise<Viewer | null> => getViewer(await headers()));

// Accounts are disabled, never deleted: once there is a user there always is one, so a positive
// answer is kept and only fresh installs pay for the query.
let usersExist = false;

/** True once any account exists (cached positive). */
export async function anyUsers(): Promise<boolean> {
  if (!usersExist) usersExist = await hasUsers(prisma());
  return usersExist;
}

/**
 * For server components: the signed-in viewer, or a redirect — to /setup on a fresh install (no
 * users yet), else to `/sign-in?next=<path>`. `path` defaults to the URL the browser asked for.
 */
export async function requirePageViewer(path?: string): Promise<Viewer> {
  const viewer = await currentViewer();
  if (viewer) return viewer;
  if (!(await anyUsers())) redirect("/setup");
  const next = safeNextPath(path ?? (await headers()).get(PATH_HEADER));
  redirect(next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`);
}
