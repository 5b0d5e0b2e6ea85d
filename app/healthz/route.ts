import { prisma } from "@/lib/server/db";

/** Always evaluated per request (never prerendered at build time). */
export const dynamic = "force-dynamic";
import { json } from "@/lib/server/http";

/** GET /healthz → 200 `{ok:true}` when the database answers, else 503. */
export async function GET(): Promise<Response> {
  try {
    await prisma().$queryRaw`SELECT 1`;
    return json({ ok: true, database: "up" });
  } catch (err) {
    return json({ ok: false, database: "down", message: (err as Error).message }, 503);
  }
}
