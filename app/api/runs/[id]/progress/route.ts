import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRunProgress } from "@/lib/server/repositories/pipelines";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** GET /api/runs/:id/progress → the run's progress, workers, S3 panel, uploads over time, events, artifacts, command; 404 when unknown. */
export const GET = withViewer(
  "viewer",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const parsed = params.safeParse(await ctx.params);
    if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
    return json(await getRunProgress(prisma(), parsed.data.id));
  },
);
