import type pg from "pg";

/**
 * Runs `fn` on one pooled connection inside BEGIN … COMMIT and returns its result; when `fn` (or
 * COMMIT) throws, rolls back (a failed ROLLBACK is ignored: the connection is released either way)
 * and rethrows the original error.
 */
/**
 * Keeps a checked-out client's `error` event from becoming an uncaught exception: pg-pool listens
 * only while a client is idle, and a connection that dies between two queries of a transaction
 * (a database stop or restart) emits `error` on the client; the next query then rejects, which is
 * where the caller sees it. @returns the function that removes the listener (call before release).
 */
export function quietClientErrors(client: pg.PoolClient): () => void {
  const ignore = () => undefined;
  client.on("error", ignore);
  return () => void client.off("error", ignore);
}

export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const unquiet = quietClientErrors(client);
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    unquiet();
    client.release();
  }
}
