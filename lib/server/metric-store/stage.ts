import { once } from "node:events";
import { finished } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * COPY paths of `run.metrics` ingest. Rows get to PostgreSQL by `COPY … FROM STDIN`, without
 * the per-value array encoding/decoding of `unnest($1::text[], …)`:
 * - as blocks into "MetricBlock" in the binary format ({@link copyBlocks}; blocks.ts) when
 *   every step of the run's batch is new (the append-only case, append.ts decides);
 * - else as text-format lines into the staging table {@link STAGE_TABLE} ({@link copyRows}), a temporary table per
 *   pooled connection (created on first use, kept for the connection's life), emptied at every
 *   COMMIT or ROLLBACK (`ON COMMIT DELETE ROWS` truncates it in place: no catalog churn per
 *   batch), which append.ts merges into "MetricRow" with `ON CONFLICT DO UPDATE`.
 */
export const STAGE_TABLE = "pitwall_metric_stage";

/**
 * Appends COPY text-format lines (`key \t step \t value \t ts`, `\N` for no ts; `chunks` of whole
 * lines, streamed with backpressure) to the staging table in one round trip: the same simple
 * query creates the table first when this connection has none and, with `clear`, deletes rows an
 * earlier run of the batch staged. Must run inside the caller's transaction.
 * @throws what PostgreSQL raises for a bad line (class 22, e.g. 22021 for a NUL byte).
 */
export async function copyRows(
  client: pg.PoolClient,
  chunks: readonly string[],
  clear: boolean,
): Promise<void> {
  // IF NOT EXISTS on every batch, not a per-connection "created" flag: a table created inside a
  // transaction that is later rolled back is gone. pg-copy-streams finishes at ReadyForQuery, after
  // every statement of the query string; the statements before COPY only add a CommandComplete.
  const create = `CREATE TEMP TABLE IF NOT EXISTS ${STAGE_TABLE} (key text NOT NULL, step int8 NOT NULL, value float8 NOT NULL, ts timestamptz) ON COMMIT DELETE ROWS;`;
  await copyIn(
    client,
    `${create}${clear ? ` DELETE FROM ${STAGE_TABLE};` : ""} COPY ${STAGE_TABLE} (key, step, value, ts) FROM STDIN`,
    chunks,
  );
}

/**
 * Appends block rows to "MetricBlock" in one round trip: `data` is a whole binary-format COPY
 * stream (blocks.ts, BlockCopy). Must run inside the caller's transaction.
 * @throws what PostgreSQL raises for a bad row (class 22, e.g. 22021 for a NUL in a key) or an existing block (23505).
 */
export async function copyBlocks(client: pg.PoolClient, data: Buffer): Promise<void> {
  await copyIn(
    client,
    `COPY "MetricBlock" ("runId", key, "firstStep", "lastStep", steps, "values", "tsMs") FROM STDIN (FORMAT binary)`,
    [data],
  );
}

async function copyIn(
  client: pg.PoolClient,
  sql: string,
  chunks: ReadonlyArray<string | Buffer>,
): Promise<void> {
  const stream = client.query(copyFrom(sql));
  const done = finished(stream);
  for (const chunk of chunks) {
    // Respect backpressure: a batch of millions of points is streamed, not buffered twice.
    if (!stream.write(typeof chunk === "string" ? Buffer.from(chunk) : chunk))
      await Promise.race([once(stream, "drain"), done]);
  }
  stream.end();
  await done;
}

/** A value as a COPY text-format field: backslash, tab, newline and carriage return escaped. */
export function escapeCopyText(s: string): string {
  return /[\\\t\n\r]/.test(s)
    ? s.replace(/[\\\t\n\r]/g, (c) =>
        c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
      )
    : s;
}
