import { hostServingRoute, type HostServingResponse } from "@/lib/api/hosts";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getHostServing } from "@/lib/server/repositories/serving";
import { apiRoute } from "@/lib/server/route-input";
import { resolveTimeRange } from "@/lib/time-range";

/** GET /api/hosts/:name/serving ?range=6h | from&to (epoch ms) → the window (default last hour) of the host's serving runs (scraped /metrics); 400 `invalid_query` for a bad range; 404 when unknown. */
export const GET = apiRoute("viewer", hostServingRoute, async ({ params, query }) => {
  const now = new Date();
  const view: HostServingResponse = await getHostServing(
    prisma(),
    params.name,
    now,
    resolveTimeRange(query, now.getTime()),
  );
  return json(view);
});
