import { toNextJsHandler } from "better-auth/next-js";
import { authRequest, getAuth } from "@/lib/server/auth/better-auth";

/** Never prerendered: every answer depends on the request's cookies. */
export const dynamic = "force-dynamic";

/**
 * /api/auth/* — better-auth's endpoints: POST sign-in/email `{email, password}` (sets the session
 * cookie), POST sign-out, GET get-session. Its own CSRF check applies: a request carrying cookies
 * must come with this site's Origin. Sign-up is off (accounts come from /setup, /admin and the CLI).
 */
export const { GET, POST } = toNextJsHandler(async (request: Request) => (await getAuth()).handler(await authRequest(request)));
