import { z } from "zod";

import { currentSession } from "@/lib/server/auth/viewer";
import { pool } from "@/lib/server/db";
import { errorResponse } from "@/lib/server/http";
import { logger } from "@/lib/server/logger";
import { removeSignedOutPushSubscriptions } from "@/lib/server/repositories/push";

/** Optional body of POST /api/auth/sign-out: the signing-out device's push endpoint, if it has one. */
const signOutBody = z.object({ pushEndpoint: z.string().url().max(2048).optional() });

/**
 * Sign-out that leaves no push behind (docs/notifications.md "Signing out"): reads the session
 * the cookie names and the optional `{pushEndpoint}` body, runs better-auth's sign-out
 * (`signOut`), and when it succeeded removes that person's subscriptions made in that session plus
 * the one for `pushEndpoint`. A body that is not such JSON gets 400 `invalid_body` and nothing is
 * signed out. A failed removal is logged; the sign-out still answers as better-auth did.
 */
export async function signOutRemovingPush(
  request: Request,
  signOut: () => Promise<Response>,
): Promise<Response> {
  const text = await request.clone().text();
  let endpoint: string | undefined;
  if (text.trim()) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return errorResponse(400, "invalid_body", "the sign-out body must be JSON");
    }
    const parsed = signOutBody.safeParse(raw);
    if (!parsed.success)
      return errorResponse(
        400,
        "invalid_body",
        `pushEndpoint: ${parsed.error.issues[0]?.message ?? "invalid"} (the device's push endpoint URL, optional)`,
      );
    endpoint = parsed.data.pushEndpoint;
  }
  const session = await currentSession(request.headers);
  const response = await signOut();
  if (response.ok && session)
    await removeSignedOutPushSubscriptions(pool(), session.userId, session.id, endpoint).catch(
      (err: unknown) =>
        logger.warn(
          { err, userId: session.userId },
          "removing push subscriptions at sign-out failed",
        ),
    );
  return response;
}
