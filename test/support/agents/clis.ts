import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The Claude Code version the tests pin (the one docs/agents.md was verified with). */
export const CLAUDE_CODE_VERSION = "2.1.332";
/** The opencode version the tests pin (the one docs/agents.md was verified with). */
export const OPENCODE_VERSION = "1.18.33";
/** The agent CLI packages the tests run, pinned. */
export const AGENT_CLI_PACKAGES = [
  `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
  `opencode-ai@${OPENCODE_VERSION}`,
] as const;

/**
 * Folder the agent CLIs are installed into, outside the repo and cached across runs:
 * $PITWALL_AGENT_CLI_DIR, else ~/.cache/pitwall-agents. Each package version gets its own
 * sub-folder (`<name>@<version>`), so branches that pin different versions do not reinstall
 * over each other.
 */
export function agentCliDir(): string {
  return process.env.PITWALL_AGENT_CLI_DIR || path.join(os.homedir(), ".cache", "pitwall-agents");
}

/**
 * Path of the `bin` executable of npm package `name@version`, installing it from the registry
 * into its own folder under agentCliDir() when missing. Not a dependency of Pitwall.
 * @throws Error with npm's output when the install fails.
 */
export function ensureAgentCli(name: string, version: string, bin: string): string {
  const dir = path.join(agentCliDir(), `${name.replace("/", "+")}@${version}`);
  const exe = path.join(dir, "node_modules", ".bin", bin);
  let installed = false;
  try {
    installed =
      fs.existsSync(exe) &&
      (
        JSON.parse(
          fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8"),
        ) as { version: string }
      ).version === version;
  } catch {
    installed = false;
  }
  if (!installed) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync(
      "npm",
      ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", `${name}@${version}`],
      { stdio: "pipe", timeout: 600_000 },
    );
  }
  return exe;
}

/** Paths of the pinned `claude` and `opencode` executables (installed on first use, see ensureAgentCli). */
export function ensureAgentClis(): { claude: string; opencode: string } {
  return {
    claude: ensureAgentCli("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude"),
    opencode: ensureAgentCli("opencode-ai", OPENCODE_VERSION, "opencode"),
  };
}

/**
 * The Claude Code versions to test: the pinned one, plus the newest on npm when npm answers
 * (`npm view`, 20 s) and it differs. When npm does not answer, prints one line saying that only
 * the pinned version is tested. $PITWALL_AGENT_PINNED_ONLY=1 skips the look-up.
 * @returns [{version, claude}] with the pinned version first.
 */
export function claudeVersionsToTest(): Array<{ version: string; claude: string }> {
  const out = [
    {
      version: CLAUDE_CODE_VERSION,
      claude: ensureAgentCli("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude"),
    },
  ];
  if (process.env.PITWALL_AGENT_PINNED_ONLY === "1") return out;
  let newest = "";
  try {
    newest = execFileSync("npm", ["view", "@anthropic-ai/claude-code", "version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    }).trim();
  } catch (err) {
    process.stdout.write(
      `npm registry not reachable (${(err as Error).message.split("\n")[0]}): testing only the pinned Claude Code ${CLAUDE_CODE_VERSION}\n`,
    );
    return out;
  }
  if (/^\d+\.\d+\.\d+$/.test(newest) && newest !== CLAUDE_CODE_VERSION) {
    process.stdout.write(
      `Claude Code ${newest} is the newest on npm: testing it too, beside the pinned ${CLAUDE_CODE_VERSION}\n`,
    );
    out.push({
      version: newest,
      claude: ensureAgentCli("@anthropic-ai/claude-code", newest, "claude"),
    });
  }
  return out;
}

/**
 * Environment that keeps Claude Code 2.1 offline and on the scripted model server, and nothing
 * else: the CLI's own defaults for every tool (see docs/agents.md).
 */
export function claudeOfflineEnv(modelUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-test-scripted",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
  };
}

/**
 * The switch that gives Claude Code 2.1.332 the older TodoWrite tool instead of its default
 * TaskCreate/TaskUpdate/TaskList (the "TodoWrite enabled" variant of the tests).
 */
export const CLAUDE_TODOWRITE_ENV: Record<string, string> = {
  CLAUDE_CODE_ENABLE_TODO_TOOLS: "1",
  CLAUDE_CODE_ENABLE_TASKS: "0",
};

/**
 * The model the default-settings tests ask for. Claude Code 2.1.332's default model (Opus 5.5)
 * has no todo tool at all; Sonnet 4.6 gets the default Task* tools (deferred, loaded through
 * ToolSearch). A model choice, not a tool switch.
 */
export const CLAUDE_TASKS_MODEL = "claude-sonnet-4-6";

/**
 * Environment that keeps opencode 1.18 offline and away from the person's own opencode state:
 * no models.dev fetch, no auto-update, and XDG config/data/cache/state folders under `xdgRoot`
 * (a fresh temp folder per test run).
 */
export function opencodeOfflineEnv(xdgRoot: string): Record<string, string> {
  const dirs = {
    XDG_CONFIG_HOME: "config",
    XDG_DATA_HOME: "data",
    XDG_CACHE_HOME: "cache",
    XDG_STATE_HOME: "state",
  };
  const env: Record<string, string> = {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
  };
  for (const [name, sub] of Object.entries(dirs)) {
    env[name] = path.join(xdgRoot, sub);
    fs.mkdirSync(env[name], { recursive: true });
  }
  return env;
}

/**
 * Writes `opencode.json` into `projectDir` with one OpenAI-compatible provider `scripted` at
 * `${modelUrl}/v1` as the default model, and an empty `.opencode/node_modules` plus lock file so
 * opencode does not try `npm install @opencode-ai/plugin` into the config folder at start
 * (≈70 s of retries when the registry is unreachable).
 */
export function writeOpencodeProject(projectDir: string, modelUrl: string): void {
  const config = {
    $schema: "https://opencode.ai/config.json",
    provider: {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted",
        options: { baseURL: `${modelUrl}/v1`, apiKey: "sk-test-scripted" },
        models: { scripted: { name: "Scripted", tool_call: true } },
      },
    },
    model: "scripted/scripted",
  };
  fs.writeFileSync(path.join(projectDir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  fs.mkdirSync(path.join(projectDir, ".opencode", "node_modules"), { recursive: true });
  fs.writeFileSync(path.join(projectDir, ".opencode", "package-lock.json"), "{}\n");
}
