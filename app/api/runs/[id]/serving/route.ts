import { z } from "zod";
import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRunServing } from "@/lib/server/repositories/serving";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** GET /api/runs/:id/serving → server telemetry during the run (its host's serving runs, sweep levels in time); 404 when unknown. */
export const GET = withViewer("viewer", async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
  const parsed = params.safeParse(await ctx.params);
  if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
  return json(await getRunServing(prisma(), parsed.data.id));
});
