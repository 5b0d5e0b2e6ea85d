import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { listSessions, sessionListQuery } from "@/lib/server/repositories/sessions";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/sessions?limit → `{ asOf, sessions }`: agent sessions, most recently updated first. */
export const GET = withViewer("viewer", async (request) => {
  const query = sessionListQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!query.success) return errorResponse(400, "invalid_query", describeIssues(query.error));
  return json(await listSessions(prisma(), query.data));
});
