import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { afterAll, beforeAll } from "vitest";

import {
  claudeOfflineEnv,
  ensureAgentClis,
  opencodeOfflineEnv,
  writeOpencodeProject,
} from "@/test/support/agents/clis";
import {
  lastToolResults,
  startModelServer,
  type ModelScript,
  type ModelServer,
} from "@/test/support/agents/model-server";
import { startOpencodeServer, type OpencodeServer } from "@/test/support/agents/opencode-serve";
import { claudeInteractiveHome } from "@/test/support/agents/run-interactive";
import { runClaudePty, type PtyRun } from "@/test/support/agents/run-pty";
import { startAgentTestbed, type AgentTestbed } from "@/test/support/agents/testbed";
import { openSignedInPage } from "@/test/support/browser";
import { newSignedInUser } from "@/test/support/people";

// The set-up every real-agent-CLI test repeats (testbed, scripted model server, the CLI in a
// pseudo-terminal, a signed-in browser), with its cleanups run in reverse order after the file's
// tests, so that each test file reads as its scenario.

/** A cleanup registered with {@link AgentFixture.defer}; may be async. */
export type Cleanup = () => Promise<void> | void;

/**
 * The fixture {@link withAgentFixture} returns. Its fields are usable inside tests (after the
 * file's `beforeAll`), not at module level.
 */
export interface AgentFixture {
  /** The real Pitwall (server, database pool, Prisma client, worker token). */
  readonly bed: AgentTestbed;
  /** Paths of the pinned `claude` and `opencode` executables. */
  readonly clis: { claude: string; opencode: string };
  /** Runs `cleanup` after the file's tests (last registered runs first), before the testbed closes. */
  defer(cleanup: Cleanup): void;
  /** Starts a scripted model server (see model-server.ts) that is closed after the file's tests. */
  startModel(script: ModelScript): Promise<ModelServer>;
  /**
   * Starts the real Claude Code TUI in a pseudo-terminal (runClaudePty) in `dir`, offline against
   * `model`, with `env` (the installed project's) and a HOME whose first-run questions are
   * answered (claudeInteractiveHome); stopped after the file's tests.
   */
  claudePty(opts: {
    dir: string;
    env: Record<string, string>;
    model: ModelServer;
    args: string[];
  }): PtyRun;
  /**
   * Points project `dir` at `model` (writeOpencodeProject: the scripted provider, no permission
   * settings) and starts the real `opencode serve` there, offline (its own XDG folders) with `env`
   * (the installed project's); stopped after the file's tests.
   */
  opencodeServe(opts: {
    dir: string;
    env: Record<string, string>;
    model: ModelServer;
  }): Promise<OpencodeServer>;
  /**
   * Signs in a new person of `role` (default "approver", named "<role> person") and opens a
   * Chromium page for them, 390x844 unless `viewport` is null; the browser closes after the
   * file's tests. @throws when sign-in or Chromium fails.
   */
  signedInPage(opts?: {
    role?: "viewer" | "approver" | "admin";
    viewport?: { width: number; height: number } | null;
  }): Promise<{ page: Page; user: { email: string; password: string; cookie: string } }>;
}

/**
 * Registers the `beforeAll` (install/reuse the pinned CLIs, start an {@link AgentTestbed} for
 * `hostName` with `serverEnv` over the server defaults; 600 s allowed) and `afterAll` (the
 * deferred cleanups in reverse order, then the testbed) of a real-agent-CLI test file, and
 * returns the fixture. Call it once at the top level of the test file.
 */
export function withAgentFixture(
  hostName: string,
  serverEnv?: Record<string, string>,
): AgentFixture {
  let bed: AgentTestbed | undefined;
  let clis: { claude: string; opencode: string } | undefined;
  const cleanups: Cleanup[] = [];
  const defer = (cleanup: Cleanup) => void cleanups.push(cleanup);

  beforeAll(async () => {
    clis = ensureAgentClis();
    bed = await startAgentTestbed(hostName, serverEnv);
  }, 600_000);

  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await bed?.close();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the agent fixture is used before its beforeAll ran");
    return value;
  };

  return {
    get bed() {
      return started(bed);
    },
    get clis() {
      return started(clis);
    },
    defer,
    async startModel(script) {
      const model = await startModelServer(script);
      defer(() => model.close());
      return model;
    },
    claudePty({ dir, env, model, args }) {
      const offline = claudeOfflineEnv(model.url);
      const run = runClaudePty({
        claude: started(clis).claude,
        cwd: dir,
        env: { ...offline, ...env, HOME: claudeInteractiveHome(dir, offline.ANTHROPIC_API_KEY!) },
        args,
      });
      defer(() => run.stop());
      return run;
    },
    async opencodeServe({ dir, env, model }) {
      writeOpencodeProject(dir, model.url);
      const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-oc-xdg-"));
      const oc = await startOpencodeServer({
        opencode: started(clis).opencode,
        cwd: dir,
        env: { ...opencodeOfflineEnv(xdg), ...env },
      });
      defer(() => oc.stop());
      return oc;
    },
    async signedInPage({ role = "approver", viewport = { width: 390, height: 844 } } = {}) {
      const { server, prisma } = started(bed);
      const user = await newSignedInUser(prisma, server.url, role);
      const browser = await openSignedInPage(server.url, user.cookie);
      defer(() => browser.close());
      if (viewport) await browser.page.setViewportSize(viewport);
      return { page: browser.page, user };
    },
  };
}

/**
 * Whether any request `model` received so far carries a result of tool `toolName` whose content
 * includes `text` (a successful one only, when `ok` is true).
 */
export function modelSawToolResult(
  model: ModelServer,
  toolName: string,
  text: string,
  opts: { ok?: boolean } = {},
): boolean {
  return model.requests.some((r) =>
    lastToolResults(r).some(
      (t) => t.toolName === toolName && (!opts.ok || !t.isError) && t.content.includes(text),
    ),
  );
}
