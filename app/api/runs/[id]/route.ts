import { prisma } from "@/lib/server/db";
import { errorResponse, handle, json } from "@/lib/server/http";
import { getRun } from "@/lib/server/repositories/runs";

/** GET /api/runs/:id → the run with its `benchmarkPoints`; 404 when unknown. */
export async function GET(_request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await ctx.params;
    const runId = Number(id);
    if (!Number.isSafeInteger(runId) || runId <= 0) return errorResponse(400, "invalid_query", "run id must be a positive integer");
    return json(await getRun(prisma(), runId));
  });
}
