import { toNextJsHandler } from "better-auth/next-js";
import { authRequest, getAuth } from "@/lib/server/auth/better-auth";
import { limitSignIn } from "@/lib/server/auth/sign-in-limit";
import { prisma } from "@/lib/server/db";

/** Never prerendered: every answer depends on the request's cookies. */
export const dynamic = "force-dynamic";

const auth = toNextJsHandler(async (request: Request) => (await getAuth()).handler(await authRequest(request)));

/**
 * /api/auth/* — better-auth's endpoints: POST sign-in/email `{email, password}` (sets the session
 * cookie; failed attempts are limited per account and per client address, 429 `too_many_attempts`
 * with Retry-After: lib/server/auth/sign-in-limit.ts), POST sign-out, GET get-session. Its own CSRF
 * check applies: a request carrying cookies must come with this site's Origin. Sign-up is off
 * (accounts come from /setup, /admin and the CLI).
 */
export const GET = auth.GET;

/** POST /api/auth/*: see {@link GET}. */
export async function POST(request: Request): Promise<Response> {
  if (new URL(request.url).pathname.endsWith("/sign-in/email")) return limitSignIn(request, auth.POST, prisma());
  return auth.POST(request);
}
