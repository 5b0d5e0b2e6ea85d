import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getOverview, OVERVIEW_PAGE } from "@/lib/server/repositories/overview";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

const query = z.object({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(OVERVIEW_PAGE.maxLimit)
    .default(OVERVIEW_PAGE.defaultLimit),
});

/** GET /api/overview?offset=0&limit=50 → one page of running and stale runs with progress, counts over all of them, hosts, recent events and finished runs; 400 invalid_query. */
export const GET = withViewer("viewer", async (request) => {
  const sp = new URL(request.url).searchParams;
  const q = query.safeParse({
    offset: sp.get("offset") ?? undefined,
    limit: sp.get("limit") ?? undefined,
  });
  if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
  return json(await getOverview(prisma(), new Date(), q.data));
});
