import { parseExportQuery } from "@/lib/api/exports";
import { runExportRoute } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { runExport } from "@/lib/server/export/run-export";
import { errorResponse } from "@/lib/server/http";
import { apiRoute } from "@/lib/server/route-input";

/**
 * GET /api/runs/:id/export?data=points|metrics|evals|progress&format=csv|json → a download
 * (`run-42-points.csv`), streamed; 400 `invalid_query` / `invalid_export_data` /
 * `invalid_export_format`; 404 when the run is unknown. Columns: docs/api.md "Export".
 */
export const GET = apiRoute("viewer", runExportRoute, async ({ params }, request) => {
  const q = parseExportQuery(new URL(request.url).searchParams);
  if (!q.ok) return errorResponse(400, q.code, q.message);
  return runExport(prisma(), params.id, q.data, q.format);
});
