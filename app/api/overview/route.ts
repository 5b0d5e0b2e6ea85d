import { overviewRoute, type OverviewResponse } from "@/lib/api/overview";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getOverview } from "@/lib/server/repositories/overview";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/overview?offset=0&limit=50 → one page of running and stale runs with progress, counts over all of them, hosts, recent events and finished runs; 400 invalid_query. */
export const GET = apiRoute("viewer", overviewRoute, async ({ query }) => {
  const overview: OverviewResponse = await getOverview(prisma(), new Date(), query);
  return json(overview);
});
