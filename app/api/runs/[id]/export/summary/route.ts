import { runExportSummaryRoute, type RunExportSummaryResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getRunExportSummary } from "@/lib/server/repositories/export";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs/:id/export/summary → `{runId, rows: {points, metrics, evals, progress}}` (rows each export would hold); 404 when unknown. */
export const GET = apiRoute("viewer", runExportSummaryRoute, async ({ params }) => {
  const summary: RunExportSummaryResponse = await getRunExportSummary(prisma(), params.id);
  return json(summary);
});
