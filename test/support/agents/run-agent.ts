import { spawn } from "node:child_process";
import readline from "node:readline";

/** How an agent CLI run ended: exit code, the `result` text (Claude Code stream-json), all output. */
export interface AgentRun {
  code: number | null;
  result: string | null;
  stdout: string[];
  stderr: string[];
  durationMs: number;
}

/**
 * Runs `claude -p` in stream-json mode (the SDK's transport) with `prompt` as the one user
 * message, in plan mode with the stdio permission prompt tool when `planMode` (the only `-p`
 * setup that offers ExitPlanMode; nobody answers its permission requests here, so the hooks
 * decide, as when a person leaves the terminal alone); `askStdio`: the same prompt tool in the
 * default permission mode (tool permissions go to the hooks); `model` becomes `--model`. Resolves when the process exits;
 * `stdout`/`stderr` fill while it runs (for failure messages).
 * @throws Error when it runs longer than `timeoutMs` (the process is killed).
 */
export function runClaude(opts: {
  claude: string;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  planMode?: boolean;
  askStdio?: boolean;
  model?: string;
  timeoutMs?: number;
}): Promise<AgentRun> & { stdout: string[]; stderr: string[] } {
  const args = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
  ];
  if (opts.planMode) args.push("--permission-mode", "plan", "--permission-prompt-tool", "stdio");
  // Default permission mode, permission prompts over stdio that nobody answers: the hooks decide.
  else if (opts.askStdio) args.push("--permission-prompt-tool", "stdio");
  if (opts.model) args.push("--model", opts.model);
  const started = Date.now();
  const child = spawn(opts.claude, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  let result: string | null = null;
  child.stdin.write(
    `${JSON.stringify({ type: "user", message: { role: "user", content: opts.prompt } })}\n`,
  );
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    stdout.push(line);
    try {
      const m = JSON.parse(line) as { type?: string; result?: string };
      if (m.type === "result") {
        result = m.result ?? "";
        child.stdin.end();
      }
    } catch {
      // not JSON
    }
  });
  readline.createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
  const done = new Promise<AgentRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `claude ran over ${opts.timeoutMs ?? 120_000} ms\nstdout:\n${stdout.join("\n")}\nstderr:\n${stderr.join("\n")}`,
        ),
      );
    }, opts.timeoutMs ?? 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, result, stdout, stderr, durationMs: Date.now() - started });
    });
  });
  return Object.assign(done, { stdout, stderr });
}

/** The last lines an agent CLI printed so far, for a wait's failure message. */
export function outputOf(run: { stdout: string[]; stderr: string[] }): () => string {
  return () =>
    `agent stdout (last 20 lines):\n${run.stdout.slice(-20).join("\n")}\nagent stderr (last 40 lines):\n${run.stderr.slice(-40).join("\n")}`;
}

/**
 * Runs `opencode run <prompt>` (opencode 1.18) in `cwd` with its logs on stderr
 * (`--print-logs`). Resolves when the process exits; `stdout`/`stderr` fill while it runs (for
 * failure messages).
 * @throws Error when it runs longer than `timeoutMs` (the process is killed).
 */
export function runOpencode(opts: {
  opencode: string;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  timeoutMs?: number;
}): Promise<AgentRun> & { stdout: string[]; stderr: string[] } {
  const started = Date.now();
  // opencode takes its project folder from $PWD, not the process's cwd: without PWD it would run
  // in (and read the config of) the folder the test runner was started from.
  const child = spawn(opts.opencode, ["run", "--print-logs", opts.prompt], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, PWD: opts.cwd },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  readline.createInterface({ input: child.stdout }).on("line", (line) => stdout.push(line));
  readline.createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
  const done = new Promise<AgentRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `opencode ran over ${opts.timeoutMs ?? 120_000} ms\nstdout:\n${stdout.join("\n")}\nstderr:\n${stderr.join("\n")}`,
        ),
      );
    }, opts.timeoutMs ?? 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({
        code,
        result: stdout.join("\n"),
        stdout,
        stderr,
        durationMs: Date.now() - started,
      });
    });
  });
  return Object.assign(done, { stdout, stderr });
}
