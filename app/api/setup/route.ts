import { setupRoute, type SetupResponse } from "@/lib/api/admin";
import { publicOrigins } from "@/lib/server/auth/better-auth";
import { crossSiteReason } from "@/lib/server/auth/origin";
import { ForbiddenError } from "@/lib/server/auth/viewer";
import { prisma } from "@/lib/server/db";
import { handle, json } from "@/lib/server/http";
import { createFirstAdmin } from "@/lib/server/repositories/users";
import { readInput, type RouteContext } from "@/lib/server/route-input";

/**
 * POST /api/setup `{name, email, password}` — creates the first admin of a fresh install, only
 * while no account exists (race-safe: the losers get 409). No credentials exist yet, so the
 * request must be same-origin (Origin header) instead. 201 `{user}`; 400 bad body; 403
 * cross-site; 409 when setup is done. Then sign in through POST /api/auth/sign-in/email.
 */
export async function POST(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const reason = crossSiteReason(request.headers, request.method, publicOrigins());
    if (reason) throw new ForbiddenError(reason);
    const { body } = await readInput(request, ctx, setupRoute);
    const { user } = await createFirstAdmin(prisma(), body);
    const answer: SetupResponse = {
      user: { id: user.id, name: user.name, email: user.email, role: user.role },
    };
    return json(answer, 201);
  });
}
