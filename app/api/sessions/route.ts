import { listSessionsRoute, type ListSessionsResponse } from "@/lib/api/sessions";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { listSessions } from "@/lib/server/repositories/sessions";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/sessions?limit → `{ asOf, sessions }`: agent sessions, most recently updated first. */
export const GET = apiRoute("viewer", listSessionsRoute, async ({ query }) => {
  const sessions: ListSessionsResponse = await listSessions(prisma(), query);
  return json(sessions);
});
