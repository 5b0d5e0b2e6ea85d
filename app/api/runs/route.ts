import { listRunsRoute, type ListRunsResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { listRuns } from "@/lib/server/repositories/run-list";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs?kind&host&status&tag&q&limit&cursor → `{ runs, nextCursor }`, newest first. */
export const GET = apiRoute("viewer", listRunsRoute, async ({ query }) => {
  const page: ListRunsResponse = await listRuns(prisma(), query);
  return json(page);
});
