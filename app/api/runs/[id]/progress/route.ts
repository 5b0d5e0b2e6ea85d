import { z } from "zod";
import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, handle, json } from "@/lib/server/http";
import { getRunProgress } from "@/lib/server/repositories/pipelines";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** GET /api/runs/:id/progress → the run's progress, workers, S3 panel, uploads over time, events, artifacts, command; 404 when unknown. */
export async function GET(_request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const parsed = params.safeParse(await ctx.params);
    if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
    return json(await getRunProgress(prisma(), parsed.data.id));
  });
}
