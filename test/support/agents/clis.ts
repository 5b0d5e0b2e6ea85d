import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The agent CLI versions the tests run (the ones docs/agents.md was verified with). */
export const AGENT_CLI_PACKAGES = ["@anthropic-ai/claude-code@2.1.328", "opencode-ai@1.18.33"] as const;

/**
 * Folder the agent CLIs are installed into, outside the repo and cached across runs:
 * $PITWALL_AGENT_CLI_DIR, else ~/.cache/pitwall-agents.
 */
export function agentCliDir(): string {
  return process.env.PITWALL_AGENT_CLI_DIR || path.join(os.homedir(), ".cache", "pitwall-agents");
}

/**
 * Paths of the `claude` and `opencode` executables, installing both with npm (from the registry,
 * pinned versions) into agentCliDir() when missing. Not dependencies of Pitwall.
 * @throws Error with npm's output when the install fails.
 */
export function ensureAgentClis(): { claude: string; opencode: string; binDir: string } {
  const dir = agentCliDir();
  const binDir = path.join(dir, "node_modules", ".bin");
  const claude = path.join(binDir, "claude");
  const opencode = path.join(binDir, "opencode");
  const installed = (name: string, version: string) => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string }).version === version;
    } catch {
      return false;
    }
  };
  if (!fs.existsSync(claude) || !fs.existsSync(opencode) || !installed("@anthropic-ai/claude-code", "2.1.328") || !installed("opencode-ai", "1.18.33")) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", ...AGENT_CLI_PACKAGES], { stdio: "pipe", timeout: 600_000 });
  }
  return { claude, opencode, binDir };
}

/** Environment that keeps Claude Code 2.1 offline and on the scripted model server (see docs/agents.md). */
export function claudeOfflineEnv(modelUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-test-scripted",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_ENABLE_TODO_TOOLS: "1",
    CLAUDE_CODE_ENABLE_TASKS: "0",
  };
}

/**
 * Environment that keeps opencode 1.18 offline and away from the person's own opencode state:
 * no models.dev fetch, no auto-update, and XDG config/data/cache/state folders under `xdgRoot`
 * (a fresh temp folder per test run).
 */
export function opencodeOfflineEnv(xdgRoot: string): Record<string, string> {
  const dirs = { XDG_CONFIG_HOME: "config", XDG_DATA_HOME: "data", XDG_CACHE_HOME: "cache", XDG_STATE_HOME: "state" };
  const env: Record<string, string> = { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
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
    provider: { scripted: { npm: "@ai-sdk/openai-compatible", name: "Scripted", options: { baseURL: `${modelUrl}/v1`, apiKey: "sk-test-scripted" }, models: { scripted: { name: "Scripted", tool_call: true } } } },
    model: "scripted/scripted",
  };
  fs.writeFileSync(path.join(projectDir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  fs.mkdirSync(path.join(projectDir, ".opencode", "node_modules"), { recursive: true });
  fs.writeFileSync(path.join(projectDir, ".opencode", "package-lock.json"), "{}\n");
}
