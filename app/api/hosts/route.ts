import { listHostsRoute, type ListHostsResponse } from "@/lib/api/hosts";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { listHosts } from "@/lib/server/repositories/hosts";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/hosts → `{ asOf, hosts }`: every host by name with state, latest facts and the last hour per minute. */
export const GET = apiRoute("viewer", listHostsRoute, async () => {
  const hosts: ListHostsResponse = await listHosts(prisma());
  return json(hosts);
});
