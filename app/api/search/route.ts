import { searchRoute, type SearchResponse } from "@/lib/api/search";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { search } from "@/lib/server/repositories/search";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/search?q=…&limit=6 → SearchResults: runs, sessions, plans, hosts and checkpoints
 * matching `q` (substring, case-insensitive; tags whole). 400 `invalid_query` for an empty or
 * over-long `q` or a bad `limit`.
 */
export const GET = apiRoute("viewer", searchRoute, async ({ query }) => {
  const answer: SearchResponse = await search(prisma(), query);
  return json(answer);
});
