import { runServingRoute, type RunServingResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getRunServing } from "@/lib/server/repositories/serving";
import { apiRoute } from "@/lib/server/route-input";
import { resolveTimeRange } from "@/lib/time-range";

/**
 * GET /api/runs/:id/serving [?range=6h | from&to (epoch ms)] → server telemetry during the run (its host's serving runs, sweep
 * levels in time); a serving run over the given window (default: its last hour of data); 400 `invalid_query` for a bad range; 404 when unknown.
 */
export const GET = apiRoute("viewer", runServingRoute, async ({ params, query }, request) => {
  const sp = new URL(request.url).searchParams;
  const given = sp.has("range") || sp.has("from") || sp.has("to");
  const now = new Date();
  const view: RunServingResponse = await getRunServing(
    prisma(),
    params.id,
    now,
    given ? resolveTimeRange(query, now.getTime()) : undefined,
  );
  return json(view);
});
