import pty from "@lydell/node-pty";

/** A real `claude` TUI running in a node-pty pseudo-terminal. */
export interface PtyRun {
  /** Everything the terminal printed so far, with ANSI escape sequences removed. */
  plain: () => string;
  /**
   * {@link PtyRun.plain} with all whitespace removed: the TUI moves the cursor instead of printing
   * spaces, so a phrase may arrive without them ("3consecutiveactionswereblocked", seen in CI).
   */
  compact: () => string;
  /** The last `chars` characters of {@link PtyRun.plain}, labelled, for a failed wait's message. */
  tail: (chars?: number) => string;
  /** Types `keys` as a person at the keyboard would ("\r" is Enter). */
  type: (keys: string) => void;
  /** Sends Ctrl-C twice, then kills the process group after 3 s if it is still there. */
  stop: () => Promise<void>;
}

/** Removes CSI/OSC escape sequences and carriage returns from terminal output. */
export function stripAnsi(raw: string): string {
  return raw
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
    .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]/g, "")
    .replace(/\x1b[()][A-Za-z0-9]/g, "")
    .replace(/\x1b[=>78M]/g, "")
    .replace(/\r/g, "");
}

/**
 * Starts `claude <args…>` interactively (no `-p`) in a node-pty pseudo-terminal of 120x40 in
 * `cwd`, with `env` over process.env and TERM=xterm-256color; no permission-mode flag unless the
 * caller passes one in `args`, so the CLI runs in its default mode. Nobody types unless the test
 * calls `type`; the session stays open until `stop()`.
 * @throws when node-pty cannot spawn the executable.
 */
export function runClaudePty(opts: {
  claude: string;
  cwd: string;
  env: Record<string, string>;
  args: string[];
}): PtyRun {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { TERM: "xterm-256color", PWD: opts.cwd }, opts.env);
  const term = pty.spawn(opts.claude, opts.args, {
    name: "xterm-256color",
    cols: 120,
    rows: 40,
    cwd: opts.cwd,
    env,
  });
  let raw = "";
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    term.onExit(() => {
      exited = true;
      resolve();
    }),
  );
  term.onData((d) => (raw += d));
  const plain = () => stripAnsi(raw);
  return {
    plain,
    compact: () => plain().replace(/\s/g, ""),
    tail: (chars = 2000) =>
      `terminal so far (last ${chars} characters, escapes removed):\n${plain().slice(-chars)}`,
    type: (keys) => {
      if (!exited) term.write(keys);
    },
    stop: async () => {
      if (exited) return;
      term.write("\x03");
      await new Promise((r) => setTimeout(r, 300));
      if (!exited) term.write("\x03");
      const timer = setTimeout(() => {
        try {
          process.kill(-term.pid, "SIGKILL");
        } catch {
          try {
            term.kill("SIGKILL");
          } catch {
            // already gone
          }
        }
      }, 3000);
      await exit;
      clearTimeout(timer);
    },
  };
}
