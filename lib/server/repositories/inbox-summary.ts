import type pg from "pg";

import { isoTime } from "@/lib/iso-time";
import type { InboxSummary } from "@/lib/view-models/inbox";

/**
 * How many entries wait in the inbox at `at` (items and proposed plans, as GET /api/inbox counts
 * them) and when the oldest of them started waiting (ISO time, null when none waits), for the wall.
 */
export async function inboxSummary(pool: pg.Pool, at: Date = new Date()): Promise<InboxSummary> {
  const res = await pool.query<{ n: string; oldest: Date | null }>(
    `WITH w AS (
       SELECT "createdAt" AS t FROM "InboxItem" WHERE status = 'waiting' AND "expiresAt" > $1
       UNION ALL
       SELECT "proposedAt" FROM "Plan" WHERE status = 'proposed' AND "expiresAt" > $1)
     SELECT count(*) AS n, min(t) AS oldest FROM w`,
    [at],
  );
  const row = res.rows[0];
  return {
    count: Number(row?.n ?? 0),
    oldestAt: row?.oldest ? isoTime(row.oldest) : null,
  };
}
