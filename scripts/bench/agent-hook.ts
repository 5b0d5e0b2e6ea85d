/**
 * Bench scenario `agent-hook`: what the Claude Code todo hook (clients/agent-hooks/claude-code.mjs)
 * adds to a tool call. Spawns the hook N times with a recorded PostToolUse(TodoWrite) event on
 * stdin (each call a new process, as Claude Code runs it) and N times the no-op hook `node -e 0`,
 * and prints p50/p99 wall time of both and the difference (target: p99 difference < 150 ms).
 * The hook posts to a local receiver that acks like /api/ingest (no database: this measures the
 * hook, not Pitwall's ingest, which `ingest` benches). Figures only; nothing is asserted.
 * Run alone: `npx tsx scripts/bench/agent-hook.ts [--full]` (N = 40, or 200 with --full).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const hookFile = path.resolve(import.meta.dirname, "../../clients/agent-hooks/claude-code.mjs");

function timeOnce(args: string[], stdin: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("exit", () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
    child.stdin.end(stdin);
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export const scenario = {
  name: "agent-hook",
  description: "Claude Code todo hook latency per tool call vs a no-op hook (node -e 0)",
  async run(opts: { full: boolean; log: (line: string) => void }): Promise<void> {
    const n = opts.full ? 200 : 40;
    let received = 0;
    const receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        const frames = JSON.parse(body) as unknown[];
        received += frames.length;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ results: frames.map(() => ({ ok: true })) }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-bench-hook-"));
    const env = { ...process.env, PITWALL_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, PITWALL_TOKEN: "bench", PITWALL_AGENT_STATE_DIR: stateDir, PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json") };
    const event = (i: number) =>
      JSON.stringify({
        session_id: "bench-session",
        hook_event_name: "PostToolUse",
        cwd: process.cwd(),
        tool_name: "TodoWrite",
        tool_input: { todos: [{ content: "Run throughput benchmark C=1 to C=100", status: i % 2 ? "completed" : "in_progress", activeForm: "Running throughput benchmark" }, { content: "Summarize results", status: "pending", activeForm: "Summarizing" }] },
      });
    try {
      const hook: number[] = [];
      const noop: number[] = [];
      for (let i = 0; i < n; i++) {
        // Interleaved, so load from other work on the machine hits both alike.
        noop.push(await timeOnce(["-e", "0"], "{}", env));
        hook.push(await timeOnce([hookFile, "claude-code"], event(i), env));
      }
      hook.sort((a, b) => a - b);
      noop.sort((a, b) => a - b);
      const f = (v: number) => `${v.toFixed(1)} ms`;
      opts.log(`agent-hook: ${n} calls each; frames received ${received} (expected ${n})`);
      opts.log(`  no-op hook (node -e 0)   p50 ${f(pct(noop, 50))}  p99 ${f(pct(noop, 99))}   (anchor: ~90 ms on the dev VM)`);
      opts.log(`  todo hook (TodoWrite)    p50 ${f(pct(hook, 50))}  p99 ${f(pct(hook, 99))}`);
      opts.log(`  added by the hook        p50 ${f(pct(hook, 50) - pct(noop, 50))}  p99 ${f(pct(hook, 99) - pct(noop, 99))}   (target: p99 < 150 ms)`);
    } finally {
      receiver.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await scenario.run({ full: process.argv.includes("--full"), log: (line) => console.log(line) });
}
