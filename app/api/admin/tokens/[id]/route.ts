import { revokeTokenRoute, type RevokeTokenResponse } from "@/lib/api/admin";
import { prisma } from "@/lib/server/db";
import { errorResponse, json } from "@/lib/server/http";
import { revokeToken } from "@/lib/server/repositories/tokens";
import { apiRoute } from "@/lib/server/route-input";

/** DELETE /api/admin/tokens/:id (admin) → `{revoked: id}`: new connections with it are refused; 404 unknown or already revoked. */
export const DELETE = apiRoute("admin", revokeTokenRoute, async ({ params }) => {
  if (!(await revokeToken(prisma(), params.id)))
    return errorResponse(404, "not_found", `no active token #${params.id}`);
  const answer: RevokeTokenResponse = { revoked: params.id };
  return json(answer);
});
