import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import readline from "node:readline";

/**
 * Runs Pitwall for the demo exactly as `npm start` does, as a child process: `scripts/start.ts`
 * (embedded PostgreSQL in the demo's data folder, migrations, `next build` when stale, then the
 * server). The child gets its own process group so a Ctrl-C in the terminal reaches only the
 * demo, which stops its workers first and then the server.
 */

/** A running Pitwall child process. */
export interface PitwallProcess {
  pid: number;
  /** Resolves with the exit code (null when killed by a signal) once the child has exited. */
  exited: Promise<number | null>;
  /**
   * Graceful stop: SIGTERM to the server (which flushes and stops its PostgreSQL), waits for it;
   * SIGKILL to the whole group after `timeoutMs` (default 30 s). Before the server is up, SIGINT
   * goes to the whole group instead, as a terminal Ctrl-C on `npm start` would.
   */
  stop(timeoutMs?: number): Promise<number | null>;
}

/** Settings of {@link startPitwall}. */
export interface StartPitwallOptions {
  projectDir: string;
  port: number;
  /** Bind address (HOST). */
  host: string;
  /** Embedded PostgreSQL folder (PITWALL_DATA_DIR). */
  dataDir: string;
  /** Extra environment (PITWALL_SKIP_BUILD, LOG_LEVEL…). */
  env?: Record<string, string>;
  /** Every output line of the child, readable (pino JSON turned into `level: msg`). */
  onLine: (line: string, level: "info" | "warn" | "error" | "output") => void;
  /** Also append the raw output here. */
  logFile?: string;
}

/**
 * Throws when something already listens on `port` (a running Pitwall, say), so the demo never
 * mistakes another server's /healthz for its own.
 * @throws Error naming the port.
 */
export async function assertPortFree(port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === "EADDRINUSE"
            ? `port ${port} is already in use (is Pitwall already running?); pass --port <n>`
            : `cannot listen on port ${port}: ${err.message}`,
        ),
      ),
    );
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

/**
 * Starts `scripts/start.ts`. `ready` resolves with the server's URL once it logged "Pitwall
 * listening" and `/healthz` answered 200; it rejects (after stopping the child) when the child
 * exits first (its last output lines are in the message) or the health check fails for 60 s.
 * @throws Error when the child cannot be spawned.
 */
export function launchPitwall(
  opts: StartPitwallOptions,
): PitwallProcess & { ready: Promise<string> } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    PORT: String(opts.port),
    HOST: opts.host,
    PITWALL_DATA_DIR: opts.dataDir,
    // The demo never writes into a database configured for real data.
    DATABASE_URL: "",
  };
  // Node with tsx's loader (not the tsx wrapper), so the pid is the server's own.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: opts.projectDir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not start scripts/start.ts");
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const log = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: "a" }) : null;
  const tail: string[] = [];
  let listening = false;
  let onListening: () => void = () => undefined;

  const handle = (line: string) => {
    log?.write(`${line}\n`);
    tail.push(line);
    if (tail.length > 40) tail.shift();
    const parsed = parsePinoLine(line);
    if (!parsed) return opts.onLine(line, "output");
    const level = parsed.level >= 50 ? "error" : parsed.level >= 40 ? "warn" : "info";
    opts.onLine(parsed.errMessage ? `${parsed.msg}: ${parsed.errMessage}` : parsed.msg, level);
    if (!listening && parsed.msg.startsWith("Pitwall listening")) {
      listening = true;
      onListening();
    }
  };
  readline.createInterface({ input: child.stdout! }).on("line", handle);
  readline.createInterface({ input: child.stderr! }).on("line", handle);
  void exited.then(() => log?.end());

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  };
  let stopping: Promise<number | null> | null = null;
  const proc: PitwallProcess = {
    pid,
    exited,
    stop: (timeoutMs = 30_000) => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          if (listening) child.kill("SIGTERM");
          else signalGroup("SIGINT");
        }
        const timer = setTimeout(() => signalGroup("SIGKILL"), timeoutMs);
        const code = await exited;
        clearTimeout(timer);
        return code;
      })();
      return stopping;
    },
  };

  const ready = (async () => {
    try {
      await new Promise<void>((resolve, reject) => {
        onListening = resolve;
        void exited.then((code) =>
          reject(
            new Error(
              `Pitwall exited with code ${code} before it was up. Its last lines:\n${tail.join("\n")}`,
            ),
          ),
        );
      });
      const reachable =
        opts.host === "0.0.0.0" || opts.host === "::"
          ? "127.0.0.1"
          : opts.host.includes(":")
            ? `[${opts.host}]`
            : opts.host;
      const url = `http://${reachable}:${opts.port}`;
      await waitHealthy(url, 60_000, () => child.exitCode !== null || child.signalCode !== null);
      return url;
    } catch (err) {
      await proc.stop(15_000);
      throw err;
    }
  })();
  return { ...proc, ready };
}

/** A pino JSON line's level, message and error message; null for any other line (build output). */
function parsePinoLine(
  line: string,
): { level: number; msg: string; errMessage: string | null } | null {
  if (!line.startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
  if (typeof v.msg !== "string") return null;
  return {
    level: typeof v.level === "number" ? v.level : 30,
    msg: v.msg,
    errMessage: typeof v.err?.message === "string" ? v.err.message : null,
  };
}

/** Polls `/healthz` until 200. @throws Error after `timeoutMs`, or once `gone()` says the server exited. */
async function waitHealthy(url: string, timeoutMs: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline && !gone()) {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url}/healthz did not answer 200 (${last || "the server exited"})`);
}
