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
