import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getPlan } from "@/lib/server/repositories/plans";

/**
 * GET /api/plans/by-id/:id → the plan with its items, linked run and session as they are now, and
 * every decision; 404 when unknown. (By numeric id: /api/plans/:key/… is the proposer's side.)
 */
export const GET = withViewer(
  "viewer",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const { id } = await ctx.params;
    const planId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(planId) || planId <= 0)
      return errorResponse(400, "invalid_query", "plan id must be a positive integer");
    return json(await getPlan(prisma(), planId));
  },
);
