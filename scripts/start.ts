/**
 * `npm start` / `npm run dev`: the one command that brings Pitwall up.
 * With DATABASE_URL unset it starts the embedded PostgreSQL (data in .data/ or PITWALL_DATA_DIR);
 * then applies migrations, builds the dashboard if needed, and serves on PORT (default 8080).
 */
import path from "node:path";

import {
  resolveDataDir,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";
import { parseEnv } from "@/lib/server/env";
import { logger } from "@/lib/server/logger";

import { ensureBuild } from "./lib/build";

const projectDir = path.resolve(import.meta.dirname, "..");
const dev = process.argv.includes("--dev");

async function main(): Promise<void> {
  Object.assign(process.env, { NODE_ENV: dev ? "development" : "production" });
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const initial = parseEnv();
  let embedded: EmbeddedDatabase | null = null;
  let url = initial.DATABASE_URL;
  if (!url) {
    const dataDir = await resolveDataDir(projectDir, initial.PITWALL_DATA_DIR, logger);
    embedded = await startEmbeddedPostgres({ dataDir, log: logger });
    url = embedded.url;
  } else {
    logger.info("using DATABASE_URL; no embedded PostgreSQL started");
  }
  const stopDb = async () => {
    if (embedded?.owned) await embedded.stop();
  };

  try {
    // PITWALL_SKIP_MIGRATE=1: the database is known to be migrated (test servers run on clones
    // of a migrated template; `prisma migrate deploy` would only confirm it, ~2 s of CPU a start).
    if (process.env.PITWALL_SKIP_MIGRATE) logger.info("migrations skipped (PITWALL_SKIP_MIGRATE)");
    else {
      await migrateDeploy(projectDir, url);
      logger.info("database migrations applied");
    }
    // PITWALL_SKIP_BUILD=1: serve the existing build as is (tests build once up front).
    if (!dev && !process.env.PITWALL_SKIP_BUILD)
      await ensureBuild(projectDir, (m) => logger.info(m));
  } catch (err) {
    await stopDb();
    throw err;
  }

  process.env.DATABASE_URL = url;
  const { startServer } = await import("../server");
  const server = await startServer(parseEnv(), logger).catch(async (err: unknown) => {
    await stopDb();
    throw err;
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server
      .close()
      .then(stopDb)
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      });
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err: unknown) => {
  logger.fatal({ err }, "Pitwall failed to start");
  process.exit(1);
});
