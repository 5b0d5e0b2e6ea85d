import { toNextJsHandler } from "better-auth/next-js";

import { authRequest, getAuth } from "@/lib/server/auth/better-auth";
import { limitSignIn } from "@/lib/server/auth/sign-in-limit";
import { databaseHealth } from "@/lib/server/database/health";
import { databaseUrl, prisma } from "@/lib/server/db";
import { DatabaseUnavailableError } from "@/lib/server/errors";
import { errorResponse, handle } from "@/lib/server/http";
import { logger } from "@/lib/server/logger";
import { signOutRemovingPush } from "@/lib/server/push/sign-out";

/** Never prerendered: every answer depends on the request's cookies. */
export const dynamic = "force-dynamic";

const auth = toNextJsHandler(async (request: Request) =>
  (await getAuth()).handler(await authRequest(request)),
);

/**
 * /api/auth/* — better-auth's endpoints: POST sign-in/email `{email, password}` as JSON,
 * form-urlencoded or multipart (sets the session cookie; every attempt is counted per account and
 * per client address, 429 `too_many_attempts` with Retry-After during the back-off:
 * lib/server/auth/sign-in-limit.ts), POST sign-out (optional JSON `{pushEndpoint}`; removes
 * that session's push subscriptions and the device's: lib/server/push/sign-out.ts), GET get-session. Bodies over 64 KiB get 413.
 * Its own CSRF check applies: a request carrying cookies must come with this site's Origin.
 * Sign-up is off (accounts come from /setup, /admin and the CLI).
 */
export async function GET(request: Request): Promise<Response> {
  return duringOutage(() => auth.GET(request));
}

/** POST /api/auth/*: see {@link GET}. Any path naming a sign-in (however spelled) goes through the limiter. */
export async function POST(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.toLowerCase().replace(/\/{2,}/g, "/");
  if (path.includes("/sign-in"))
    return duringOutage(() => limitSignIn(request, auth.POST, prisma()));
  // Sign-out also removes that session's push subscriptions (and the device's, when sent).
  if (path.endsWith("/sign-out"))
    return duringOutage(() => signOutRemovingPush(request, () => auth.POST(request)));
  return duringOutage(() => auth.POST(request));
}

/**
 * better-auth answers 500 when the database is down (it catches the error itself): such an
 * answer, or an outage thrown by the limiter, becomes 503 `database_unavailable` when the health
 * probe confirms the database is down.
 */
async function duringOutage(fn: () => Promise<Response>): Promise<Response> {
  const response = await handle(fn);
  if (response.status < 500 || response.status === 503) return response;
  if ((await databaseHealth(databaseUrl(), logger)) === "up") return response;
  const unavailable = new DatabaseUnavailableError();
  return errorResponse(unavailable.status, unavailable.code, unavailable.message);
}
