import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRunExportSummary } from "@/lib/server/repositories/export";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** GET /api/runs/:id/export/summary → `{runId, rows: {points, metrics, evals, progress}}` (rows each export would hold); 404 when unknown. */
export const GET = withViewer(
  "viewer",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    return json(await getRunExportSummary(prisma(), p.data.id));
  },
);
