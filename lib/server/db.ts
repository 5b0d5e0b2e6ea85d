import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

import { PrismaClient } from "@/generated/prisma/client";

import { watchPoolErrors } from "./database/pool-errors";
import { bindRawPool } from "./database/raw-pool";
import { parseEnv } from "./env";
import { logger } from "./logger";

/**
 * The one Prisma client and the one `pg` pool of the process, kept on `globalThis` so that
 * `server.ts` (run by tsx) and Next's bundled route handlers share them. Prisma serves reads and
 * ordinary writes; the raw pool serves bulk ingest (multi-row `INSERT ... ON CONFLICT` with
 * `unnest`), LISTEN/NOTIFY, and anything Prisma cannot express in one round trip.
 */
interface DbHandles {
  prisma: PrismaClient;
  pool: pg.Pool;
  url: string;
}

const globalForDb = globalThis as typeof globalThis & { __pitwallDb?: DbHandles };

// Postgres returns int8 (e.g. count(*)) as strings by default; numbers below 2^53 are safe
// as JS numbers, anything larger stays a string so nothing is silently rounded.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

function handles(): DbHandles {
  if (!globalForDb.__pitwallDb) {
    const url = parseEnv().DATABASE_URL;
    if (!url)
      throw new Error(
        "DATABASE_URL is not set (start Pitwall with `npm start`, which provides one)",
      );
    // Prisma gets a pool of ours (not one it makes from the URL) so that its idle connections'
    // errors are handled too. Connection attempts give up after 10 s (a frozen database must not
    // hold requests forever).
    const prismaPool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 10_000,
    });
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
    watchPoolErrors(prismaPool, "prisma", logger);
    watchPoolErrors(pool, "ingest", logger);
    const prisma = new PrismaClient({ adapter: new PrismaPg(prismaPool) });
    // The metric store's readers, handed this client, fold pending points through the raw pool.
    bindRawPool(prisma, pool);
    globalForDb.__pitwallDb = { url, prisma, pool };
  }
  return globalForDb.__pitwallDb;
}

/** The shared Prisma client. @throws Error when DATABASE_URL is unset. */
export function prisma(): PrismaClient {
  return handles().prisma;
}

/** The shared raw `pg` pool (bulk ingest, NOTIFY). @throws Error when DATABASE_URL is unset. */
export function pool(): pg.Pool {
  return handles().pool;
}

/** The connection string in use (for LISTEN clients). */
export function databaseUrl(): string {
  return handles().url;
}

/** Closes the pool and the Prisma client (graceful shutdown). */
export async function closeDb(): Promise<void> {
  const h = globalForDb.__pitwallDb;
  if (!h) return;
  globalForDb.__pitwallDb = undefined;
  await Promise.allSettled([h.pool.end(), h.prisma.$disconnect()]);
}
