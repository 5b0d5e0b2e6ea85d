import { compareExportRoute, parseExportQuery } from "@/lib/api/exports";
import { prisma } from "@/lib/server/db";
import { compareExport } from "@/lib/server/export/run-export";
import { errorResponse } from "@/lib/server/http";
import { apiRoute } from "@/lib/server/route-input";

/**
 * GET /api/compare/export?ids=1,2&format=csv|json → the benchmark points of the runs in one
 * download (`compare-1-2-points.csv`), each row with runId, runKey, runName. `data` may only be
 * `points` (the default). 400 `invalid_query` without ids, with a part that is no positive integer,
 * or with more than 12, `invalid_export_data`,
 * `invalid_export_format`; 404 naming unknown runs.
 */
export const GET = apiRoute("viewer", compareExportRoute, async ({ query }, request) => {
  const sp = new URL(request.url).searchParams;
  const q = parseExportQuery(sp, { defaultData: "points", allowed: ["points"] });
  if (!q.ok) return errorResponse(400, q.code, q.message);
  return compareExport(prisma(), query.ids, q.format);
});
