import { ForbiddenError } from "@/lib/server/errors";

import type { Viewer } from "./viewer";

/**
 * The signed-in person's user id, for things a person owns (saved views).
 * @throws ForbiddenError (403) for a worker token: tokens own no such things.
 */
export function personId(viewer: Viewer, what: string): string {
  if (viewer.kind !== "user")
    throw new ForbiddenError(`${what} belong to a signed-in person; a worker token has none`);
  return viewer.id;
}
