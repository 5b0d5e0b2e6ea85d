import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import {
  readLiveConnection,
  resolveDataDir,
  startEmbeddedPostgres,
} from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";
import { parseEnv } from "@/lib/server/env";

const projectDir = path.resolve(import.meta.dirname, "..");

/** Progress messages of admin commands go to stderr, keeping stdout for results. */
const stderrLog = {
  info: (m: string) => process.stderr.write(`${m}\n`),
  warn: (m: string) => process.stderr.write(`warning: ${m}\n`),
};

/**
 * Runs `fn` with a Prisma client on the database the server uses: `DATABASE_URL` if set; else
 * the embedded PostgreSQL of `PITWALL_DATA_DIR` (default .data/) when the server is running
 * (its connection.json); else it starts that embedded database itself (migrating it) and stops it
 * afterwards.
 * @throws whatever `fn` throws, or Error when no database can be reached.
 */
export async function withAdminDatabase<T>(fn: (db: PrismaClient) => Promise<T>): Promise<T> {
  const env = parseEnv();
  let url = env.DATABASE_URL;
  let stop = async () => undefined as void;
  if (!url) {
    const dataDir = await resolveDataDir(projectDir, env.PITWALL_DATA_DIR, {
      info: () => undefined,
      warn: () => undefined,
    });
    const live = await readLiveConnection(dataDir);
    if (live) {
      url = live.url;
    } else {
      stderrLog.info(
        `no running Pitwall database found in ${dataDir}; starting it for this command`,
      );
      const db = await startEmbeddedPostgres({
        dataDir,
        log: { info: () => undefined, warn: stderrLog.warn },
      });
      url = db.url;
      stop = () => db.stop();
      await migrateDeploy(projectDir, url);
    }
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  try {
    return await fn(prisma);
  } finally {
    await prisma.$disconnect();
    await stop();
  }
}
