import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getSession } from "@/lib/server/repositories/sessions";

/** GET /api/sessions/:id → the session's current list, timeline and item histories; 404 when unknown. */
export const GET = withViewer(
  "viewer",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const { id } = await ctx.params;
    const sessionId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(sessionId) || sessionId <= 0)
      return errorResponse(400, "invalid_query", "session id must be a positive integer");
    return json(await getSession(prisma(), sessionId));
  },
);
