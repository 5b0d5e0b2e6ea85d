import { getSessionRoute, type SessionResponse } from "@/lib/api/sessions";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getSession } from "@/lib/server/repositories/sessions";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/sessions/:id → the session's current list, timeline and item histories; 404 when unknown. */
export const GET = apiRoute("viewer", getSessionRoute, async ({ params }) => {
  const session: SessionResponse = await getSession(prisma(), params.id);
  return json(session);
});
