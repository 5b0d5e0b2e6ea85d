import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { revokeToken } from "@/lib/server/repositories/tokens";

/** DELETE /api/admin/tokens/:id (admin) → `{revoked: id}`: new connections with it are refused; 404 unknown or already revoked. */
export const DELETE = withViewer(
  "admin",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const { id } = await ctx.params;
    const tokenId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(tokenId) || tokenId <= 0)
      return errorResponse(400, "invalid_query", "token id must be a positive integer");
    if (!(await revokeToken(prisma(), tokenId)))
      return errorResponse(404, "not_found", `no active token #${tokenId}`);
    return json({ revoked: tokenId });
  },
);
