import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

/**
 * A real Pitwall for a real-agent-CLI test: its own database (a `pg` pool of 3 and a Prisma client
 * on it), a worker token for one host, and the production server on that database.
 */
export interface AgentTestbed {
  databaseUrl: string;
  server: TestServer;
  pool: pg.Pool;
  prisma: PrismaClient;
  /** A worker token of `hostName`, as `pitwall agent install` is given. */
  token: string;
  /** Stops the server, then disconnects Prisma and ends the pool. */
  close(): Promise<void>;
}

/**
 * Starts an {@link AgentTestbed} for `hostName` (server start waits up to 180 s: these tests run
 * beside others on a loaded machine). @throws when the database or the server cannot start.
 */
export async function startAgentTestbed(hostName: string): Promise<AgentTestbed> {
  const databaseUrl = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }),
  });
  const token = (await createToken(prisma, hostName)).token;
  const server = await startTestServer({ databaseUrl, startTimeoutMs: 180_000 });
  return {
    databaseUrl,
    server,
    pool,
    prisma,
    token,
    async close() {
      await server.stop();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
