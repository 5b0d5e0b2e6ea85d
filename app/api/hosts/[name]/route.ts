import { getHostRoute, type HostResponse } from "@/lib/api/hosts";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getHost } from "@/lib/server/repositories/hosts";
import { apiRoute } from "@/lib/server/route-input";
import { resolveTimeRange } from "@/lib/time-range";

/** GET /api/hosts/:name ?range=6h | from&to (epoch ms) → the host with per-GPU history over the window (default last hour) and its latest runs; 400 `invalid_query` for a bad range; 404 when unknown. */
export const GET = apiRoute("viewer", getHostRoute, async ({ params, query }) => {
  const now = new Date();
  const host: HostResponse = await getHost(
    prisma(),
    params.name,
    now,
    resolveTimeRange(query, now.getTime()),
  );
  return json(host);
});
