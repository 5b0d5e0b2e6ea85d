import { toNextJsHandler } from "better-auth/next-js";
import { authRequest, getAuth } from "@/lib/server/auth/better-auth";
import { limitSignIn } from "@/lib/server/auth/sign-in-limit";
import { prisma } from "@/lib/server/db";

/** Never prerendered: every answer depends on the request's cookies. */
export const dynamic = "force-dynamic";

const auth = toNextJsHandler(async (request: Request) => (await getAuth()).handler(await authRequest(request)));

/**
 * /api/auth/* — better-auth's endpoints: POST sign-in/email `{email, password}` as JSON,
 * form-urlencoded or multipart (sets the session cookie; every attempt is counted per account and
 * per client address, 429 `too_many_attempts` with Retry-After during the back-off:
 * lib/server/auth/sign-in-limit.ts), POST sign-out, GET get-session. Bodies over 64 KiB get 413.
 * Its own CSRF check applies: a request carrying cookies must come with this site's Origin.
 * Sign-up is off (accounts come from /setup, /admin and the CLI).
 */
export const GET = auth.GET;

/** POST /api/auth/*: see {@link GET}. Any path naming a sign-in (however spelled) goes through the limiter. */
export async function POST(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.toLowerCase().replace(/\/{2,}/g, "/");
  if (path.includes("/sign-in")) return limitSignIn(request, auth.POST, prisma());
  return auth.POST(request);
}
