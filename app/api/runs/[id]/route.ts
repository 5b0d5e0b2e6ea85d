import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { getRun, runPatch, updateRun } from "@/lib/server/repositories/runs";

type Ctx = { params: Promise<{ id: string }> };

async function runIdOf(ctx: Ctx): Promise<number | Response> {
  const runId = Number((await ctx.params).id);
  if (!Number.isSafeInteger(runId) || runId <= 0)
    return errorResponse(400, "invalid_query", "run id must be a positive integer");
  return runId;
}

/** GET /api/runs/:id → the run with its `benchmarkPoints`; 404 when unknown. */
export const GET = withViewer("viewer", async (_request, _viewer, ctx: Ctx) => {
  const runId = await runIdOf(ctx);
  if (runId instanceof Response) return runId;
  return json(await getRun(prisma(), runId));
});

/**
 * PATCH /api/runs/:id `{name?, tags?, notes?, archived?}` → the updated run. Approvers and admins
 * only (403 otherwise; cookie requests must be same-origin); 400 `invalid_body`, 404 unknown run.
 */
export const PATCH = withViewer("approver", async (request, viewer, ctx: Ctx) => {
  const runId = await runIdOf(ctx);
  if (runId instanceof Response) return runId;
  const patch = await parseJsonBody(request, runPatch);
  if (patch instanceof Response) return patch;
  return json(await updateRun(prisma(), runId, patch, viewer.email ?? viewer.name));
});
