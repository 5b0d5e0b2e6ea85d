import type { PrismaClient } from "@/generated/prisma/client";
import { MAX_EPOCH_MS, MIN_EPOCH_MS } from "@/lib/protocol/bounds";

/** What `repairStoredTimes` did to one timestamp column. */
export interface TimeRepair {
  table: string;
  column: string;
  /** Rows whose time was outside 2000-01-01..2100-01-01. */
  rows: number;
  /** `cleared`: set to NULL (nullable column); `replaced`: set to the repair time; `deleted`: the rows were removed (the time is part of their key and the repair time collided). */
  action: "cleared" | "replaced" | "deleted";
}

/**
 * Repairs stored times outside the protocol's window (before 2000-01-01 or from 2100-01-01 on,
 * e.g. microseconds stored as milliseconds before times were bounded): in every timestamptz
 * column of the current schema's tables (views show their tables' times; the metric store's
 * blocks keep epoch ms that ingest bounded, lib/server/metric-store), a nullable column's bad value is set to NULL, a NOT NULL
 * column's to `now` (the repair time); where that would break a unique key (a sample keyed by
 * its time) those rows are deleted. Idempotent; returns one entry per column that had bad rows.
 * @throws the driver's error when the database is unreachable.
 */
export async function repairStoredTimes(
  db: PrismaClient,
  now: Date = new Date(),
): Promise<TimeRepair[]> {
  const columns = await db.$queryRaw<Array<{ table: string; column: string; nullable: string }>>`
    SELECT c.table_name AS "table", c.column_name AS "column", c.is_nullable AS nullable
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.data_type = 'timestamp with time zone' AND c.table_name <> '_prisma_migrations'
    ORDER BY c.table_name, c.column_name`;
  const min = new Date(MIN_EPOCH_MS);
  const max = new Date(MAX_EPOCH_MS);
  const repairs: TimeRepair[] = [];
  for (const { table, column, nullable } of columns) {
    const t = `"${table.replaceAll('"', '""')}"`;
    const c = `"${column.replaceAll('"', '""')}"`;
    const bad = `${c} < $1 OR ${c} >= $2`;
    if (nullable === "YES") {
      const rows = await db.$executeRawUnsafe(`UPDATE ${t} SET ${c} = NULL WHERE ${bad}`, min, max);
      if (rows) repairs.push({ table, column, rows, action: "cleared" });
      continue;
    }
    try {
      const rows = await db.$executeRawUnsafe(
        `UPDATE ${t} SET ${c} = $3 WHERE ${bad}`,
        min,
        max,
        now,
      );
      if (rows) repairs.push({ table, column, rows, action: "replaced" });
    } catch (err) {
      if (
        !/unique|P2002|23505/i.test(
          String((err as { code?: string }).code) + (err as Error).message,
        )
      )
        throw err;
      const rows = await db.$executeRawUnsafe(`DELETE FROM ${t} WHERE ${bad}`, min, max);
      if (rows) repairs.push({ table, column, rows, action: "deleted" });
    }
  }
  return repairs;
}
