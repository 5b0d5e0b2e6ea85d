import type pg from "pg";

import type { Logger } from "@/lib/server/logger";

/** Frame ids older than this are forgotten: no worker resends a frame that late. */
const FRAME_ID_RETENTION = "30 days";

/**
 * Hourly housekeeping: forgets old dedupe ids (IngestedFrame grows by one row per frame) and
 * failed-sign-in counts whose window ended long ago (one row per account or address tried).
 * Returns a stop function. Errors are logged; the next hour tries again.
 */
export function startMaintenance(pool: pg.Pool, log: Logger, intervalMs = 3_600_000): () => void {
  const run = async () => {
    const res = await pool.query(
      `DELETE FROM "IngestedFrame" WHERE "receivedAt" < now() - interval '${FRAME_ID_RETENTION}'`,
    );
    if (res.rowCount) log.info({ deleted: res.rowCount }, "pruned old frame ids");
    await pool.query(
      `DELETE FROM "SignInThrottle" WHERE "lastFailureAt" < now() - interval '1 day'`,
    );
  };
  const timer = setInterval(
    () => void run().catch((err: unknown) => log.warn({ err }, "maintenance failed")),
    intervalMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}
