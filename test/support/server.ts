import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";

import { buildIsStale } from "@/scripts/lib/build";

import { recordTestCost } from "./test-costs";

const projectDir = path.resolve(import.meta.dirname, "../..");

/** A Pitwall server process started for a test. */
export interface TestServer {
  url: string;
  port: number;
  /** The server process's id (its own node process: /proc/<pid>/status shows its memory). */
  pid: number;
  /** Everything the server logged so far (JSON lines). */
  logs: string[];
  /** SIGTERM and wait for exit (graceful shutdown path). */
  stop(): Promise<void>;
  /** SIGKILL and wait (crash). */
  kill(): Promise<void>;
}

/**
 * Starts the real server (`scripts/start.ts`, production build, the given database, which must be
 * migrated already: a `createTestDatabase()` clone, or pass `env: { PITWALL_SKIP_MIGRATE: "" }`) on `port`
 * (default: a free one chosen by the OS) and resolves once it listens.
 * @throws Error with the server's output when it exits before listening or takes over
 *   `startTimeoutMs` (default 60 s; migrations alone can take half a minute on a busy machine),
 *   or when the production build is stale.
 */
export async function startTestServer(opts: {
  databaseUrl: string;
  port?: number;
  env?: Record<string, string>;
  startTimeoutMs?: number;
}): Promise<TestServer> {
  // PITWALL_TEST_ASSUME_BUILT=1 skips the check (working next to people editing the UI).
  if (
    !process.env.PITWALL_TEST_DEV &&
    !process.env.PITWALL_TEST_ASSUME_BUILT &&
    buildIsStale(projectDir)
  ) {
    // Building here would race between test files; `npm test` builds once before vitest.
    throw new Error(
      "the production build is missing or stale: run `npm run build` (npm test does it for you)",
    );
  }
  // PITWALL_TEST_DEV=1 serves with `next dev` instead of the production build (debugging only).
  const args = ["scripts/start.ts", ...(process.env.PITWALL_TEST_DEV ? ["--dev"] : [])];
  // Node itself with tsx's loader (not the tsx wrapper), so the pid is the server's own:
  // kill() must really kill the server, not a wrapper whose child lives on.
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: projectDir,
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      PORT: String(opts.port ?? 0),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      PITWALL_SKIP_BUILD: "1",
      PITWALL_SKIP_MIGRATE: "1",
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const bootStartedMs = Date.now();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
    const timer = setTimeout(
      () =>
        reject(
          new Error(`server did not start in ${startTimeoutMs / 1000} s:\n${logs.join("\n")}`),
        ),
      startTimeoutMs,
    );
    const onLine = (line: string) => {
      logs.push(line);
      if (line.includes("Pitwall listening")) {
        try {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { port: number }).port);
          recordTestCost("server-boot", Date.now() - bootStartedMs);
        } catch {
          // not JSON: keep waiting
        }
      }
    };
    readline.createInterface({ input: child.stdout! }).on("line", onLine);
    readline.createInterface({ input: child.stderr! }).on("line", (l) => logs.push(l));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${logs.join("\n")}`));
    });
  });
  const stopWith = (signal: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    logs,
    stop: stopWith("SIGTERM"),
    kill: stopWith("SIGKILL"),
  };
}

export type { ChildProcess };
