/**
 * Shared plumbing of the `npm run bench` scenarios (scripts/bench/<name>.ts): cleanup on every
 * exit path, a janitor for when this process is killed outright, a fresh embedded PostgreSQL in a
 * temp folder with the migrations applied, and the production server as a child process; /proc
 * readings (proc.ts) and figure formatting (figures.ts) are re-exported from here. Scenarios print
 * figures, never assert them.
 */

import { spawn, type ChildProcess } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

import { PrismaClient } from "@/generated/prisma/client";
import { startEmbeddedPostgres, type ConnectionInfo } from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";
import { createToken } from "@/lib/server/repositories/tokens";

import { buildIsStale, ensureBuild } from "../lib/build";
import { recordPid, startJanitor } from "./janitor";
import { descendantsOf, readProc } from "./proc";

// Re-exported so scenario files keep importing everything from ./support.
export { CLK_TCK, descendantsOf, machineTicks, memoryKb, readProc, treeCpuS } from "./proc";
export { fmt, fmtInt, mib, percentile, printTable, timeCalls } from "./figures";

/** The checkout the bench runs from. */
export const projectDir = path.resolve(import.meta.dirname, "../..");
/** All bench traffic stays on loopback. */
export const HOST = "127.0.0.1";

/** What a scenario is given: `full` for the large sizes (`--full`), and where to print its lines. */
export interface ScenarioOptions {
  full: boolean;
  log: (line: string) => void;
}

/** A bench scenario module's export (convention of scripts/bench/*.ts). */
export interface Scenario {
  name: string;
  description: string;
  run(opts: ScenarioOptions): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Cleanup: registered as resources are acquired, run once in reverse order on every exit path.

const cleanups: Array<{ name: string; fn: () => Promise<void> }> = [];
let cleaning: Promise<void> | null = null;

export function onCleanup(name: string, fn: () => Promise<void>): void {
  cleanups.push({ name, fn });
}

export function runCleanup(): Promise<void> {
  return (cleaning ??= (async () => {
    const steps = cleanups.splice(0).reverse();
    for (const { name, fn } of steps) {
      try {
        await withTimeout(fn(), 30_000, `cleanup '${name}'`);
      } catch (err) {
        console.error(`[bench] cleanup '${name}' failed: ${(err as Error).message}`);
      }
    }
  })().finally(() => (cleaning = null)));
}

let exiting = false;
/** Cleans up and exits; later calls (a second Ctrl-C, the timeout firing meanwhile) wait. */
export async function shutdown(code: number, why?: string): Promise<never> {
  if (exiting) {
    if (why) console.error(`[bench] ${why} — still cleaning up, please wait`);
    await new Promise<never>(() => undefined);
  }
  exiting = true;
  if (why) console.error(`[bench] ${why}; cleaning up`);
  // Last resort: never hang forever even if a cleanup step does.
  setTimeout(() => {
    console.error("[bench] cleanup took over 90 s; exiting anyway (check for stray processes)");
    process.exit(code || 1);
  }, 90_000).unref();
  await runCleanup();
  process.exit(code);
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const log = (msg: string) => console.log(`[bench] ${msg}`);

// ---------------------------------------------------------------------------------------------
// The server, started like test/support/server.ts does

export interface ServerProcess {
  url: string;
  port: number;
  /** The node process running server.ts (the `tsx` CLI wraps it in a parent process). */
  serverPid: number | null;
  logs: string[];
  /** SIGTERM, wait (then SIGKILL after 20 s). */
  stop(): Promise<void>;
}

export async function startServerProcess(
  databaseUrl: string,
  onPid: (name: "server" | "serverNode", pid: number | null | undefined) => void,
  /** Port to listen on; 0 (default): any free one. */
  listenPort = 0,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    path.join(projectDir, "node_modules", ".bin", "tsx"),
    // PITWALL_BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
    [
      ...(process.env.PITWALL_BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PITWALL_BENCH_CPU_PROF}`]
        : []),
      "scripts/start.ts",
    ],
    {
      cwd: projectDir,
      // Loopback only: no notification webhook (an empty value means unset), no telemetry.
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(listenPort),
        HOST,
        LOG_LEVEL: "info",
        NEXT_TELEMETRY_DISABLED: "1",
        PITWALL_WEBHOOK_URL: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const logs: string[] = [];
  const remember = (line: string) => {
    logs.push(line);
    if (logs.length > 500) logs.shift();
  };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let alive = true;
  void exited.then(() => (alive = false));
  const stop = async () => {
    if (!alive) return;
    const tree = child.pid ? [child.pid, ...descendantsOf(child.pid)] : [];
    child.kill("SIGTERM");
    const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
    if (!done) {
      console.error("[bench] server did not exit 20 s after SIGTERM; sending SIGKILL");
      for (const pid of tree) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      await exited;
    }
  };
  onCleanup("server", stop);
  onPid("server", child.pid);

  const port = await new Promise<number>((resolve, reject) => {
    // Longer than the tests' 60 s: scripts/start.ts rebuilds by itself when a source changed
    // after our own build check (other people editing the checkout meanwhile).
    const timer = setTimeout(
      () => reject(new Error(`server did not start in 150 s:\n${logs.join("\n")}`)),
      150_000,
    );
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      remember(line);
      if (line.includes("Pitwall listening")) {
        try {
          const p = (JSON.parse(line) as { port: number }).port;
          clearTimeout(timer);
          resolve(p);
        } catch {
          // not JSON: keep waiting
        }
      }
    });
    readline.createInterface({ input: child.stderr! }).on("line", remember);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${logs.join("\n")}`));
    });
  });
  // `tsx` runs the script in a child node process; that one is the server (deepest match).
  const candidates = child.pid ? [child.pid, ...descendantsOf(child.pid)] : [];
  const serverPid =
    candidates
      .filter((pid) => (readProc(`/proc/${pid}/cmdline`) ?? "").includes("scripts/start.ts"))
      .pop() ??
    child.pid ??
    null;
  onPid("serverNode", serverPid);
  return { url: `http://${HOST}:${port}`, port, serverPid, logs, stop };
}

// ---------------------------------------------------------------------------------------------
// A fresh database (and optionally the server) for one scenario

/** A scenario's private PostgreSQL (migrated), a pg pool on it, a worker token and, when asked, the production server. */
export interface BenchEnvironment {
  databaseUrl: string;
  /** Postmaster pid (for CPU readings). */
  postgresPid: number;
  pool: pg.Pool;
  /** Bearer token of a worker (viewer rights on the read API). */
  token: string;
  server: ServerProcess | null;
  /**
   * Stops the server and PostgreSQL and starts both again on the same data folder and port (a
   * cold start: empty shared buffers and server caches; the OS page cache is kept). Replaces
   * `server` (null stays null). @throws Error when either does not come back.
   */
  restart(): Promise<void>;
}

/**
 * Builds the dashboard when the production build is stale (only with `server`), starts an
 * embedded PostgreSQL in a new temp folder, migrates it, creates a worker token and starts the
 * server. Everything is registered for cleanup (runCleanup / shutdown).
 */
export async function startBenchEnvironment(opts: {
  server: boolean;
  log: (line: string) => void;
}): Promise<BenchEnvironment> {
  if (opts.server && buildIsStale(projectDir)) {
    opts.log(`production build is missing or stale; building it first`);
    await ensureBuild(projectDir, opts.log);
  }
  const tempDir = await fsp.mkdtemp(path.join(os.tmpdir(), "pitwall-bench-"));
  onCleanup("temp folder", () => fsp.rm(tempDir, { recursive: true, force: true }));
  await fsp.chmod(tempDir, 0o711); // the `postgres` user must traverse it when we run as root
  startJanitor(tempDir);
  const dataDir = path.join(tempDir, "data");
  const pgLog = { info: () => undefined, warn: (m: string) => console.warn(`[bench] ${m}`) };
  let embedded = await startEmbeddedPostgres({ dataDir, log: pgLog });
  const conn = JSON.parse(
    await fsp.readFile(path.join(dataDir, "connection.json"), "utf8"),
  ) as ConnectionInfo;
  onCleanup("postgres", async () => {
    try {
      await withTimeout(embedded.stop(), 20_000, "embedded PostgreSQL stop");
    } catch (err) {
      console.error(
        `[bench] ${(err as Error).message}; sending SIGKILL to the postmaster (pid ${conn.pid})`,
      );
      try {
        process.kill(conn.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  recordPid(tempDir, "postmaster", conn.pid);
  await migrateDeploy(projectDir, embedded.url);
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: embedded.url, max: 2 }),
  });
  let token: string;
  try {
    token = (await createToken(prisma, "bench")).token;
  } finally {
    await prisma.$disconnect();
  }
  const pool = new pg.Pool({ connectionString: embedded.url, max: 2 });
  // pool.end() does not wait for its idle clients to disconnect, so stopping PostgreSQL right
  // after it can make one report 57P01 (admin shutdown); without a listener that would crash us.
  pool.on("error", () => undefined);
  onCleanup("pg pool", () => pool.end());
  const server = opts.server
    ? await startServerProcess(embedded.url, (name, pid) => recordPid(tempDir, name, pid))
    : null;
  if (server) opts.log(`server ${server.url} on a fresh embedded PostgreSQL (port ${conn.port})`);
  const env: BenchEnvironment = {
    databaseUrl: embedded.url,
    postgresPid: conn.pid,
    pool,
    token,
    server,
    async restart() {
      const hadServer = env.server !== null;
      await env.server?.stop();
      await withTimeout(embedded.stop(), 30_000, "embedded PostgreSQL stop");
      embedded = await startEmbeddedPostgres({ dataDir, port: conn.port, log: pgLog });
      const now = JSON.parse(
        await fsp.readFile(path.join(dataDir, "connection.json"), "utf8"),
      ) as ConnectionInfo;
      env.postgresPid = now.pid;
      recordPid(tempDir, "postmaster", now.pid);
      env.server = hadServer
        ? await startServerProcess(embedded.url, (name, pid) => recordPid(tempDir, name, pid))
        : null;
    },
  };
  return env;
}

/** Installs the signal handlers and a hard timeout that clean up (servers, PostgreSQL, temp folders) and exit. */
export function installExitHandlers(timeoutS: number): NodeJS.Timeout {
  const hard = setTimeout(
    () => void shutdown(1, `hard timeout of ${timeoutS} s reached`),
    timeoutS * 1000,
  );
  hard.unref();
  process.on("SIGINT", () => void shutdown(130, "interrupted (SIGINT)"));
  process.on("SIGTERM", () => void shutdown(143, "terminated (SIGTERM)"));
  process.on(
    "uncaughtException",
    (err) => void shutdown(1, `uncaught error: ${err.stack ?? err.message}`),
  );
  process.on(
    "unhandledRejection",
    (err) => void shutdown(1, `unhandled rejection: ${String(err)}`),
  );
  // Runs last: anything we spawned that is still alive gets SIGTERM, by pid.
  onCleanup("leftover child processes", async () => {
    for (const pid of descendantsOf(process.pid).reverse()) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  });
  return hard;
}

/** True when `moduleUrl` (import.meta.url) is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;
}

/** Runs one scenario as a script (`npx tsx scripts/bench/<name>.ts [--full]`): figures printed, cleanup, exit 1 on error. */
export async function runStandalone(scenario: Scenario): Promise<never> {
  installExitHandlers(scenario.name === "ingest" ? 3600 : 1800);
  const full = process.argv.includes("--full");
  try {
    await scenario.run({ full, log: (line) => console.log(line) });
    return await shutdown(0);
  } catch (err) {
    console.error(
      `[bench] ${scenario.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return await shutdown(1);
  }
}
