import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { runFilters } from "@/lib/server/repositories/run-filters";
import { listRuns } from "@/lib/server/repositories/run-list";

/** GET /api/runs?kind&host&status&tag&q&limit&cursor → `{ runs, nextCursor }`, newest first. */
export const GET = withViewer("viewer", async (request) => {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const filters = runFilters.safeParse(params);
  if (!filters.success) return errorResponse(400, "invalid_query", describeIssues(filters.error));
  return json(await listRuns(prisma(), filters.data));
});
