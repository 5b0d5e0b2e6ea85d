import type pg from "pg";

/**
 * Seeds `count` running runs on one new host with one SQL statement (not through ingest), for
 * overview tests and the `overview` bench scenario. Run i (1 … count, key `<prefix>-<i>`):
 * started i seconds after `nowMs − count s` (higher i = newer), stallAfterS 120, and
 * - i % 97 = 0: silent for 2 days (stale beyond the overview's 24 h horizon);
 * - else i % 10 = 0: silent for 600 s (stale);
 * - else: last push 10 s ago (running);
 * - i % 13 = 0: an active alert `deleted_before_upload`;
 * - i % 50 = 0: archived (never on the overview).
 * Returns the host id. `seedRunExpectation` states the same rules for checks.
 */
export async function seedRunningRuns(
  pool: pg.Pool,
  count: number,
  nowMs: number,
  prefix: string,
): Promise<number> {
  const host = await pool.query<{ id: number }>(
    `INSERT INTO "Host" (name) VALUES ($1) RETURNING id`,
    [`${prefix}-host`],
  );
  const hostId = host.rows[0]!.id;
  await pool.query(
    `INSERT INTO "Run" (key, name, kind, status, "hostId", "ownerHostId", "stallAfterS", "startedAt", "lastPushAt", "activeAlerts", "archivedAt")
     SELECT $1 || '-' || i, 'run ' || i, 'extraction', 'running', $2, $2, 120,
            to_timestamp(($3::float8 - ($4::int - i) * 1000) / 1000),
            to_timestamp(($3::float8 - CASE WHEN i % 97 = 0 THEN 172800000 WHEN i % 10 = 0 THEN 600000 ELSE 10000 END) / 1000),
            CASE WHEN i % 13 = 0 THEN ARRAY['deleted_before_upload'] ELSE ARRAY[]::text[] END,
            CASE WHEN i % 50 = 0 THEN to_timestamp($3::float8 / 1000) END
       FROM generate_series(1, $4::int) AS i`,
    [prefix, hostId, nowMs, count],
  );
  return hostId;
}

/** What the overview must show for runs seeded by seedRunningRuns: run numbers i in display order, and the counts. */
export function seedRunExpectation(count: number): {
  order: number[];
  running: number;
  stale: number;
  alerting: number;
  olderStale: number;
} {
  const rows: Array<{ i: number; rank: number; pushAgoS: number }> = [];
  let olderStale = 0;
  for (let i = 1; i <= count; i++) {
    if (i % 50 === 0) continue;
    if (i % 97 === 0) {
      olderStale++;
      continue;
    }
    const stale = i % 10 === 0;
    rows.push({ i, rank: stale ? 0 : i % 13 === 0 ? 1 : 2, pushAgoS: stale ? 600 : 10 });
  }
  // Stale by most recent push (all equal here), then newest start (= higher i), in each rank.
  rows.sort((a, b) => a.rank - b.rank || a.pushAgoS - b.pushAgoS || b.i - a.i);
  return {
    order: rows.map((r) => r.i),
    running: rows.filter((r) => r.rank > 0).length,
    stale: rows.filter((r) => r.rank === 0).length,
    alerting: rows.filter((r) => r.i % 13 === 0).length,
    olderStale,
  };
}
