import { getPlanRoute, type PlanResponse } from "@/lib/api/plans";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getPlan } from "@/lib/server/repositories/plans";
import { apiRoute } from "@/lib/server/route-input";

/**
 * GET /api/plans/by-id/:id → the plan with its items, linked run and session as they are now, and
 * every decision; 404 when unknown. (By numeric id: /api/plans/:key/… is the proposer's side.)
 */
export const GET = apiRoute("viewer", getPlanRoute, async ({ params }) => {
  const plan: PlanResponse = await getPlan(prisma(), params.id);
  return json(plan);
});
