import { pushActionRoute } from "@/lib/api/push";
import { pool } from "@/lib/server/db";
import { handle, json } from "@/lib/server/http";
import { decideByActionToken } from "@/lib/server/push/decide-by-token";
import { readInput, type RouteContext } from "@/lib/server/route-input";

/**
 * POST /api/push/action `{token}` → `{id, decision, decidedBy, decidedAt}`: a notification's
 * Approve / Deny button (public/sw.js) decides without opening the app. No session: the one-use
 * signed token is the credential (lib/server/push/action-token.ts). 401 `token_invalid` (forged
 * or malformed) / `token_expired`; 409 `token_used`; 403 when its person was disabled or
 * demoted; then the decision's own answers (409 `conflict` naming who decided first, `expired`,
 * `answered_in_terminal`, `agent_ended`; 404). 400 `invalid_body`, 415 unless JSON.
 */
export async function POST(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const { body } = await readInput(request, ctx, pushActionRoute);
    return json(await decideByActionToken(pool(), body.token));
  });
}
