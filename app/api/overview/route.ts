import { overviewRoute, type OverviewResponse } from "@/lib/api/overview";
import { acceptedAgeMs, json } from "@/lib/server/http";
import { sharedOverview } from "@/lib/server/live/shared-overview";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/overview?offset=0&limit=50 → one page of running and stale runs with progress, counts
 * over all of them, hosts, recent events and finished runs; 400 invalid_query. Computed for this
 * request unless it sends `Cache-Control: max-age=1` (the overview page's live refetches): then an
 * answer shared with other viewers, under 1 s old, may come back; the `Age` header says how old (s).
 */
export const GET = apiRoute("viewer", overviewRoute, async ({ query }, request) => {
  const { value, ageMs } = await sharedOverview(query, acceptedAgeMs(request));
  const overview: OverviewResponse = value;
  return json(overview, 200, { age: String(Math.floor(ageMs / 1000)) });
});
