import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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
 * beside others on a loaded machine), the server with `serverEnv` over the defaults (e.g. a short
 * PITWALL_INBOX_TIMEOUT_S). @throws when the database or the server cannot start.
 */
export async function startAgentTestbed(
  hostName: string,
  serverEnv?: Record<string, string>,
): Promise<AgentTestbed> {
  const databaseUrl = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }),
  });
  const token = (await createToken(prisma, hostName)).token;
  const server = await startTestServer({ databaseUrl, env: serverEnv, startTimeoutMs: 180_000 });
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

/** A project folder prepared for a real agent CLI by {@link installedProject}. */
export interface InstalledProject {
  /** The git project (its own temp folder) with our hook or plugin installed. */
  dir: string;
  /** The agent config file the install was told to use (never written: no user config). */
  agentConfig: string;
  /**
   * The environment the agent runs with: `server`'s URL, `token`, a hook state folder of its
   * own (PITWALL_AGENT_STATE_DIR) and `agentConfig`.
   */
  env: Record<string, string>;
}

/**
 * A fresh git project on branch `branch` (folder `pitwall-<prefix>-*` in the temp dir) with our
 * Claude Code hook or opencode plugin installed the way a user does it: the real
 * `pitwall agent install <agent> --project <dir> [...installArgs]` command, without
 * PITWALL_URL/PITWALL_TOKEN (the agent gets them from {@link InstalledProject.env}).
 * @throws when git or the install command fails.
 */
export function installedProject(
  target: { server: { url: string }; token: string },
  agent: "claude-code" | "opencode",
  opts: { branch: string; prefix: string; installArgs?: string[] },
): InstalledProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pitwall-${opts.prefix}-`));
  execFileSync("git", ["init", "-q", "-b", opts.branch], { cwd: dir });
  const agentConfig = path.join(dir, "unused-agent.json");
  execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      path.resolve(import.meta.dirname, "../../../cli/index.ts"),
      "agent",
      "install",
      agent,
      "--project",
      dir,
      ...(opts.installArgs ?? []),
    ],
    {
      env: {
        ...process.env,
        PITWALL_URL: "",
        PITWALL_TOKEN: "",
        PITWALL_AGENT_CONFIG: agentConfig,
      },
    },
  );
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `pitwall-${opts.prefix}-state-`));
  return {
    dir,
    agentConfig,
    env: {
      PITWALL_URL: target.server.url,
      PITWALL_TOKEN: target.token,
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: agentConfig,
    },
  };
}
