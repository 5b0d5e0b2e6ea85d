import { prisma } from "@/lib/server/db";
import { json, withViewer } from "@/lib/server/http";
import { getOverview } from "@/lib/server/repositories/overview";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/overview → running and stale runs with progress, hosts, recent events and finished runs. */
export const GET = withViewer("viewer", async () => json(await getOverview(prisma())));
