import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const projectDir = path.resolve(import.meta.dirname, "../..");

/**
 * The environment of the Pitwall server the Playwright e2e projects test: `port` on 127.0.0.1,
 * its embedded PostgreSQL in `dataDir`, live sockets re-checking their session every 2 s (60 s by
 * default) so that a sign-out elsewhere shows quickly. Used by playwright.config.ts's webServer
 * and by `startE2eServer`, so both start the same server.
 */
export function e2eServerEnv(port: number, dataDir: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    PITWALL_DATA_DIR: dataDir,
    DATABASE_URL: "",
    PITWALL_LIVE_RECHECK_S: "2",
  };
}

/** An e2e server started ahead of Playwright (see `startE2eServer`). */
export interface E2eServer {
  /**
   * Resolves with the variables that make playwright.config.ts use this server and skip its
   * global setup (PITWALL_E2E_PORT, PITWALL_E2E_DATA_DIR, PITWALL_E2E_REUSE_SERVER,
   * PITWALL_E2E_PREPARED) once /healthz answers 200 and e2e/prepare.ts has created the e2e
   * people; with null when the server exited, did not answer within `timeoutMs`, or the
   * preparation failed (Playwright then starts its own, as without a head start).
   */
  ready: Promise<Record<string, string> | null>;
  /** What the server wrote to stderr and the preparation printed, so far. */
  stderr(): string;
  /** SIGTERM (graceful shutdown: the embedded PostgreSQL stops too); SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/**
 * Starts the e2e server (`scripts/start.ts`: a fresh embedded PostgreSQL in a new temporary
 * folder, migrations, the production build) on a random free-looking port, the way Playwright's
 * webServer would, so that its boot overlaps earlier stages instead of opening the e2e stage.
 * Then runs Playwright's global setup for it (e2e/prepare.ts). `env` is added to both (e.g.
 * PITWALL_CHROMIUM). The production build must be current.
 */
export function startE2eServer(env: Record<string, string> = {}, timeoutMs = 180_000): E2eServer {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-e2e-"));
  // Node with tsx's loader (not the tsx wrapper): SIGTERM then reaches the server itself.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: projectDir,
    env: { ...process.env, ...env, ...e2eServerEnv(port, dataDir) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Never outlive `npm test`, whatever way it ends.
  const orphaned = () => child.kill("SIGTERM");
  process.once("exit", orphaned);
  const errors: string[] = [];
  child.stderr!.on("data", (b: Buffer) => errors.push(b.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      process.off("exit", orphaned);
      resolve();
    }),
  );
  const playwrightEnv = {
    PITWALL_E2E_PORT: String(port),
    PITWALL_E2E_DATA_DIR: dataDir,
    PITWALL_E2E_REUSE_SERVER: "1",
  };
  const up = async () => {
    const deadline = Date.now() + timeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return true;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    return false;
  };
  // Playwright's global setup (the e2e people, the approver's signed-in state), done here too.
  const prepare = () =>
    new Promise<boolean>((resolve) => {
      const setup = spawn(process.execPath, ["--import", "tsx", "e2e/prepare.ts"], {
        cwd: projectDir,
        env: { ...process.env, ...env, ...playwrightEnv },
        stdio: ["ignore", "pipe", "pipe"],
      });
      setup.stdout!.on("data", (b: Buffer) => errors.push(b.toString()));
      setup.stderr!.on("data", (b: Buffer) => errors.push(b.toString()));
      setup.once("error", () => resolve(false));
      setup.once("exit", (code) => resolve(code === 0));
    });
  const ready = (async () => {
    if (!(await up()) || !(await prepare())) return null;
    return { ...playwrightEnv, PITWALL_E2E_PREPARED: "1" };
  })();
  return {
    ready,
    stderr: () => errors.join(""),
    async stop() {
      if (exited) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
