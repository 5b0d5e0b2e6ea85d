import { prisma } from "@/lib/server/db";
import { json, withViewer } from "@/lib/server/http";
import { listHosts } from "@/lib/server/repositories/hosts";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/hosts → `{ asOf, hosts }`: every host by name with state, latest facts and the last hour per minute. */
export const GET = withViewer("viewer", async () => json(await listHosts(prisma())));
