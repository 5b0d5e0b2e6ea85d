import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { parseExportQuery } from "@/lib/server/export/query";
import { runExport } from "@/lib/server/export/run-export";
import { errorResponse, withViewer } from "@/lib/server/http";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * GET /api/runs/:id/export?data=points|metrics|evals|progress&format=csv|json → a download
 * (`run-42-points.csv`), streamed; 400 `invalid_query` / `invalid_export_data` /
 * `invalid_export_format`; 404 when the run is unknown. Columns: docs/api.md "Export".
 */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    const q = parseExportQuery(new URL(request.url).searchParams);
    if (!q.ok) return errorResponse(400, q.code, q.message);
    return runExport(prisma(), p.data.id, q.data, q.format);
  },
);
