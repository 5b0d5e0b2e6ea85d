import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { listPlans, planListQuery } from "@/lib/server/repositories/plans";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/plans?session&run&limit → `{ asOf, pendingCount, plans }`: pending plans first, then the rest, newest first. */
export const GET = withViewer("viewer", async (request) => {
  const query = planListQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!query.success) return errorResponse(400, "invalid_query", describeIssues(query.error));
  return json(await listPlans(prisma(), query.data));
});
