import { listPlansRoute, type ListPlansResponse } from "@/lib/api/plans";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { listPlans } from "@/lib/server/repositories/plans";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/plans?session&run&limit → `{ asOf, pendingCount, plans }`: pending plans first, then the rest, newest first. */
export const GET = apiRoute("viewer", listPlansRoute, async ({ query }) => {
  const plans: ListPlansResponse = await listPlans(prisma(), query);
  return json(plans);
});
