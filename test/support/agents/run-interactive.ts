import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A running interactive `claude` session: its terminal output so far, and `stop()` to end it. */
export interface InteractiveRun {
  screen: () => string;
  /** Types `keys` into the terminal, as a person at the keyboard would ("\r" is Enter). */
  type: (keys: string) => void;
  stop: () => Promise<void>;
}

/**
 * A throwaway HOME whose `~/.claude.json` (Claude Code 2.1.328) skips the first-run TUI prompts
 * for `projectDir` and `apiKey`: onboarding/theme, "use this API key?" (the key's last 20
 * characters in `customApiKeyResponses.approved`) and the folder trust dialog.
 * Returns the HOME path.
 */
export function claudeInteractiveHome(projectDir: string, apiKey: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-cc-home-"));
  const config = {
    hasCompletedOnboarding: true,
    theme: "dark",
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: {
      [projectDir]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true },
    },
  };
  fs.writeFileSync(path.join(home, ".claude.json"), JSON.stringify(config));
  return home;
}

/**
 * Starts `claude --permission-mode <permissionMode> <prompt>` (default: plan) as a person would, in
 * a pseudo-terminal made by util-linux `script` (no node-pty), with `env` over process.env (pass
 * HOME from claudeInteractiveHome). Nobody types in the terminal unless the test calls `type`; the
 * session stays open until `stop()`, which sends Ctrl-C twice and then kills the process group.
 */
export function runClaudeInteractive(opts: {
  claude: string;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  permissionMode?: string;
}): InteractiveRun {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const command = `${quote(opts.claude)} --permission-mode ${quote(opts.permissionMode ?? "plan")} ${quote(opts.prompt)}`;
  const env = { ...process.env, TERM: "xterm-256color", COLUMNS: "120", LINES: "40", ...opts.env };
  const child = spawn("script", ["-qfc", command, "/dev/null"], {
    cwd: opts.cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
  child.stderr.on("data", (d: Buffer) => (screen += d.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    screen: () => screen,
    type: (keys: string) => void child.stdin.write(keys),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.stdin.write("\x03\x03");
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
