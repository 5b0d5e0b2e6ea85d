import { databaseHealth } from "@/lib/server/database/health";
import { databaseUrl } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { logger } from "@/lib/server/logger";

/** Always evaluated per request (never prerendered at build time). */
export const dynamic = "force-dynamic";

/**
 * GET /healthz → 200 `{ok:true, database:"up"}` when the database answers `SELECT 1` within
 * 1.5 s, else 503 `{ok:false, database:"down"}`. Answers within 2 s even when the database is
 * frozen; anonymous, so it never shows connection details (the reason is in the server log).
 */
export async function GET(): Promise<Response> {
  const health = await databaseHealth(databaseUrl(), logger);
  return health === "up"
    ? json({ ok: true, database: "up" })
    : json({ ok: false, database: "down" }, 503);
}
