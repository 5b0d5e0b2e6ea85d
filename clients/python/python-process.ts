import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";

/** Folder of the Python client (the `pitwall` package and pitwall_scrape.py). */
export const clientDir = import.meta.dirname;
const projectDir = path.resolve(clientDir, "../..");

/**
 * The interpreter of the test virtual environment (real tqdm, transformers, torch, boto3):
 * PITWALL_TEST_PYTHON, else <repo>/.venv-test/bin/python.
 * @throws Error saying how to create it when it is missing (tests fail rather than skip).
 */
export function venvPython(): string {
  const python =
    process.env.PITWALL_TEST_PYTHON ?? path.join(projectDir, ".venv-test", "bin", "python");
  if (!fs.existsSync(python)) {
    throw new Error(
      `the Python test environment is missing (${python}): run \`bash scripts/python-test-env.sh\` (.ci/run does) or set PITWALL_TEST_PYTHON`,
    );
  }
  return python;
}

/** A running Python process with line-wise JSON stdout and a stdin to talk to it. */
export interface PythonProcess {
  /** The next stdout line that is a JSON object (scripts print one per line; other lines, e.g. a library's own prints, are skipped). */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  send(line: string): void;
  /** Resolves when the process exits: code (null after a signal), signal, stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  child: ChildProcess;
}

/**
 * Writes `source` to a file in `dir` and runs it with `python` (default python3) and `-W error`,
 * the client on PYTHONPATH.
 */
export async function startPython(
  dir: string,
  source: string,
  env: Record<string, string>,
  python = "python3",
  args: string[] = [],
): Promise<PythonProcess> {
  const file = path.join(dir, `script-${randomUUID()}.py`);
  await fsp.writeFile(file, source);
  return spawnPython(python, ["-W", "error", file, ...args], env);
}

/** Runs `python args…` with the client on PYTHONPATH (see startPython). */
export function spawnPython(
  python: string,
  args: string[],
  env: Record<string, string>,
): PythonProcess {
  const child = spawn(python, args, {
    env: {
      ...process.env,
      PYTHONPATH: clientDir,
      PYTHONUNBUFFERED: "1",
      PYTHONDONTWRITEBYTECODE: "1",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const waiters: Array<(line: string | null) => void> = [];
  let closed = false;
  readline
    .createInterface({ input: child.stdout! })
    .on("line", (line) => {
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    })
    .on("close", () => {
      closed = true;
      waiters.splice(0).forEach((w) => w(null));
    });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stderr })));
  return {
    async next(timeoutMs = 120_000) {
      for (;;) {
        const line = await nextLine(timeoutMs);
        try {
          const value: unknown = JSON.parse(line);
          if (value !== null && typeof value === "object" && !Array.isArray(value))
            return value as Record<string, unknown>;
        } catch {
          // not JSON: a library's own output
        }
      }
    },
    send(line: string) {
      child.stdin!.write(`${line}\n`);
    },
    exited,
    child,
  };

  async function nextLine(timeoutMs: number): Promise<string> {
    const line = lines.length
      ? lines.shift()!
      : closed
        ? null
        : await new Promise<string | null>((resolve, reject) => {
            const timer = setTimeout(
              () =>
                reject(new Error(`no line from python within ${timeoutMs} ms; stderr:\n${stderr}`)),
              timeoutMs,
            );
            waiters.push((l) => {
              clearTimeout(timer);
              resolve(l);
            });
          });
    if (line === null)
      throw new Error(`python exited before printing a line; stderr:\n${(await exited).stderr}`);
    return line;
  }
}

/** A TCP port nothing listens on right now (the OS picks it; it is released at once). */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
