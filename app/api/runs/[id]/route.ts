import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRun } from "@/lib/server/repositories/runs";

/** GET /api/runs/:id → the run with its `benchmarkPoints`; 404 when unknown. */
export const GET = withViewer("viewer", async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = await ctx.params;
  const runId = Number(id);
  if (!Number.isSafeInteger(runId) || runId <= 0) return errorResponse(400, "invalid_query", "run id must be a positive integer");
  return json(await getRun(prisma(), runId));
});
