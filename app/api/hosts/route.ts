import { prisma } from "@/lib/server/db";
import { handle, json } from "@/lib/server/http";
import { listHosts } from "@/lib/server/repositories/hosts";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/hosts → `{ asOf, hosts }`: every host by name with state, latest facts and the last hour per minute. */
export async function GET(): Promise<Response> {
  return handle(async () => json(await listHosts(prisma())));
}
