import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { search, searchQuery } from "@/lib/server/repositories/search";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/search?q=…&limit=6 → SearchResults: runs, sessions, plans, hosts and checkpoints
 * matching `q` (substring, case-insensitive; tags whole). 400 `invalid_query` for an empty or
 * over-long `q` or a bad `limit`.
 */
export const GET = withViewer("viewer", async (request) => {
  const parsed = searchQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
  return json(await search(prisma(), parsed.data));
});
