import type pg from "pg";

/**
 * Runs `fn` on one pooled connection inside BEGIN … COMMIT and returns its result; when `fn` (or
 * COMMIT) throws, rolls back (a failed ROLLBACK is ignored: the connection is released either way)
 * and rethrows the original error.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
