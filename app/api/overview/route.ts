import { prisma } from "@/lib/server/db";
import { handle, json } from "@/lib/server/http";
import { getOverview } from "@/lib/server/repositories/overview";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/overview → running and stale runs with progress, hosts, recent events and finished runs. */
export async function GET(): Promise<Response> {
  return handle(async () => json(await getOverview(prisma())));
}
