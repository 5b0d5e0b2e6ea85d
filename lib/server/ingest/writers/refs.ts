import type pg from "pg";

/** Returns the id of host `name`, creating it when new (race-free single statement). */
export async function ensureHost(client: pg.PoolClient, name: string): Promise<number> {
  // A non-empty DO UPDATE makes this one INSERT ... ON CONFLICT that always returns the id.
  const res = await client.query<{ id: number }>(
    `INSERT INTO "Host" (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
    [name],
  );
  return res.rows[0]!.id;
}

/**
 * Returns the id of agent session `key`, creating a bare one (source "pushed", owned by
 * `ownerHostId`, the writing token's host) when new — a run or plan may name a session before
 * it pushed its todo list. An existing session keeps its owner.
 */
export async function ensureSession(
  client: pg.PoolClient,
  key: string,
  ownerHostId: number,
  at: Date,
): Promise<number> {
  const res = await client.query<{ id: number }>(
    `INSERT INTO "AgentSession" (key, source, "ownerHostId", "startedAt", "lastUpdateAt") VALUES ($1, 'pushed', $2, $3, $3)
     ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key RETURNING id`,
    [key, ownerHostId, at],
  );
  return res.rows[0]!.id;
}
