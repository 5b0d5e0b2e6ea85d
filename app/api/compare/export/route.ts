import { parseIdList } from "@/lib/paths";
import { prisma } from "@/lib/server/db";
import { parseExportQuery } from "@/lib/server/export/query";
import { compareExport } from "@/lib/server/export/run-export";
import { errorResponse, withViewer } from "@/lib/server/http";

/**
 * GET /api/compare/export?ids=1,2&format=csv|json → the benchmark points of the runs in one
 * download (`compare-1-2-points.csv`), each row with runId, runKey, runName. `data` may only be
 * `points` (the default). 400 `invalid_query` without ids, with a part that is no positive integer,
 * or with more than 12, `invalid_export_data`,
 * `invalid_export_format`; 404 naming unknown runs.
 */
export const GET = withViewer("viewer", async (request) => {
  const sp = new URL(request.url).searchParams;
  const parsed = parseIdList(sp.getAll("ids"));
  if (!parsed.ok) return errorResponse(400, "invalid_query", parsed.message);
  const ids = parsed.ids;
  const q = parseExportQuery(sp, { defaultData: "points", allowed: ["points"] });
  if (!q.ok) return errorResponse(400, q.code, q.message);
  return compareExport(prisma(), ids, q.format);
});
