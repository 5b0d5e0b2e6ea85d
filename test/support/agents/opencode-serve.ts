import { spawn } from "node:child_process";
import readline from "node:readline";

/** A running `opencode serve` (opencode 1.18's headless server, the one its web and IDE clients talk to). */
export interface OpencodeServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  stdout: string[];
  stderr: string[];
  /** Creates a session in the project folder and sends `prompt` without waiting for the answer. @returns the session id. */
  prompt(text: string): Promise<string>;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * Starts `opencode serve --port 0 --print-logs` in project folder `cwd` (opencode takes its
 * project from $PWD) and waits for its "listening on" line.
 * @throws Error with its output when it does not listen within `startTimeoutMs`.
 */
export async function startOpencodeServer(opts: {
  opencode: string;
  cwd: string;
  env: Record<string, string>;
  startTimeoutMs?: number;
}): Promise<OpencodeServer> {
  const child = spawn(opts.opencode, ["serve", "--port", "0", "--print-logs"], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, PWD: opts.cwd },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr }).on("line", (l) => stderr.push(l));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`opencode serve did not listen\n${stdout.join("\n")}\n${stderr.join("\n")}`),
      );
    }, opts.startTimeoutMs ?? 180_000);
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      stdout.push(line);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`opencode serve exited (${code})\n${stderr.join("\n")}`));
    });
  });
  const api = async (p: string, body: unknown) => {
    const res = await fetch(`${url}${p}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-opencode-directory": encodeURIComponent(opts.cwd),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`opencode ${p}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  return {
    url,
    stdout,
    stderr,
    async prompt(text) {
      const session = await api("/session", {});
      const id = String(session.id);
      await api(`/session/${id}/prompt_async`, { parts: [{ type: "text", text }] });
      return id;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}
