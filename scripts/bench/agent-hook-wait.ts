/**
 * Bench scenario `agent-hook-wait`: what Pitwall's Claude Code hooks add to the time a person
 * waits, per tool call, measured the way the person waits: the real `claude -p` (the pinned CLI,
 * installed under ~/.cache/pitwall-agents) against the scripted model server, and per tool call the
 * time from the model server finishing its reply (a tool call) to the agent's next model request
 * (the tool ran, every hook of it ran). Runs WITHOUT hooks and WITH the hooks `pitwall agent
 * install` writes are interleaved (one of each per round, so load from other work hits both alike),
 * for cases: TodoWrite calls, TaskUpdate calls (Claude Code's default task tools) and a Read (the
 * hook sends nothing), with Pitwall up (a local receiver that acks like /api/ingest: this measures
 * the hook, not Pitwall's ingest), down (connection refused) and hung (a TCP server that accepts and
 * never answers). Prints the call count, p50/p99/max of both and the difference, with the targets
 * (added p50 < 50 ms, p99 < 150 ms). Figures only; nothing is asserted.
 * Run alone: `npx tsx scripts/bench/agent-hook-wait.ts [--full] [--cases Read:up,TodoWrite:hung]`
 * (>= 200 calls per case with --full: 10 rounds x 20 calls).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { withOurHooks, type ForwarderTarget } from "@/cli/agent/install";
import { ensureForwarderSecret } from "@/clients/agent-hooks/lib/forwarder-secret.mjs";
import {
  CLAUDE_CODE_VERSION,
  CLAUDE_TASKS_MODEL,
  CLAUDE_TODOWRITE_ENV,
  claudeOfflineEnv,
  ensureAgentCli,
} from "@/test/support/agents/clis";
import {
  lastToolResults,
  offersTools,
  startModelServer,
  type ModelRequest,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { runClaude } from "@/test/support/agents/run-agent";

import { fmt, percentile } from "./figures";

const projectDir = path.resolve(import.meta.dirname, "../..");
const hookFile = path.join(projectDir, "clients", "agent-hooks", "claude-code.mjs");

type Tool = "TodoWrite" | "TaskUpdate" | "Read";
type PitwallState = "up" | "down" | "hung";
interface Case {
  tool: Tool;
  pitwall: PitwallState;
}

const CASES: Case[] = [
  { tool: "TodoWrite", pitwall: "up" },
  { tool: "TaskUpdate", pitwall: "up" },
  { tool: "Read", pitwall: "up" },
  { tool: "TodoWrite", pitwall: "down" },
  { tool: "TodoWrite", pitwall: "hung" },
  { tool: "Read", pitwall: "hung" },
];

/** The three Pitwalls a hook can meet: one that acks, a port nobody listens on, one that never answers. */
async function startPitwalls(): Promise<{
  urls: Record<PitwallState, string>;
  received: () => number;
  close: () => Promise<void>;
}> {
  let received = 0;
  const up = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      let frames: unknown[] = [];
      try {
        frames = JSON.parse(body) as unknown[];
      } catch {
        // not JSON: acked as empty
      }
      received += frames.length;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ results: frames.map(() => ({ ok: true })) }));
    });
  });
  const sockets = new Set<net.Socket>();
  const hung = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => up.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => hung.listen(0, "127.0.0.1", r));
  // A port that was free a moment ago: connection refused.
  const downPort = await freePort();
  return {
    urls: {
      up: `http://127.0.0.1:${(up.address() as AddressInfo).port}`,
      down: `http://127.0.0.1:${downPort}`,
      hung: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
    },
    received: () => received,
    close: async () => {
      for (const s of sockets) s.destroy();
      up.closeAllConnections();
      await Promise.all([new Promise((r) => up.close(r)), new Promise((r) => hung.close(r))]);
    },
  };
}

const todos = (i: number) => [
  {
    content: "Run throughput benchmark C=1 to C=100",
    status: i % 2 ? "completed" : "in_progress",
    activeForm: "Running throughput benchmark",
  },
  {
    content: "Summarize results",
    status: i % 2 ? "in_progress" : "pending",
    activeForm: "Summarizing",
  },
];

/**
 * One `claude -p` run making `calls` measured calls of `tool`; returns the waits (ms): model reply
 * written -> the agent's next main-loop request. Set-up calls (ToolSearch, TaskCreate) are not measured.
 */
async function oneRun(
  claude: string,
  tool: Tool,
  calls: number,
  dir: string,
  env: Record<string, string>,
): Promise<number[]> {
  const waits: number[] = [];
  let measuredSent = 0;
  let replyAt = 0;
  let measuring = false;
  const readFile = path.join(dir, "notes.txt");
  const model = await startModelServer((req: ModelRequest): ScriptedReply => {
    const arrived = performance.now();
    if (!offersTools(req)) return { text: "Bench" };
    if (measuring) waits.push(arrived - replyAt);
    measuring = false;
    const last = lastToolResults(req)[0];
    let reply: ScriptedReply;
    if (tool === "TaskUpdate" && !last)
      reply = {
        toolCalls: [
          { name: "ToolSearch", input: { query: "select:TaskCreate,TaskUpdate", max_results: 5 } },
        ],
      };
    else if (tool === "TaskUpdate" && last?.toolName === "ToolSearch")
      reply = {
        toolCalls: [
          {
            name: "TaskCreate",
            input: {
              subject: "Run throughput benchmark",
              description: "sweep",
              activeForm: "Running throughput benchmark",
            },
          },
        ],
      };
    else if (measuredSent >= calls) reply = { text: "Done." };
    else {
      measuredSent++;
      measuring = true;
      const i = measuredSent;
      reply =
        tool === "TodoWrite"
          ? { toolCalls: [{ name: "TodoWrite", input: { todos: todos(i) } }] }
          : tool === "TaskUpdate"
            ? {
                toolCalls: [
                  {
                    name: "TaskUpdate",
                    input: { taskId: "1", status: i % 2 ? "in_progress" : "pending" },
                  },
                ],
              }
            : { toolCalls: [{ name: "Read", input: { file_path: readFile } }] };
    }
    // The server writes the reply right after this returns (synchronously): the reply's end.
    replyAt = performance.now();
    return reply;
  });
  try {
    const run = await runClaude({
      claude,
      cwd: dir,
      env: {
        ...claudeOfflineEnv(model.url),
        ...env,
        ...(tool === "TodoWrite" ? CLAUDE_TODOWRITE_ENV : {}),
      },
      prompt: "bench",
      model: tool === "TaskUpdate" ? CLAUDE_TASKS_MODEL : undefined,
      timeoutMs: 600_000,
    });
    if (run.code !== 0 || waits.length < calls)
      throw new Error(
        `claude exited ${run.code} after ${waits.length}/${calls} calls\n${run.stderr.slice(-20).join("\n")}`,
      );
  } finally {
    await model.close();
  }
  return waits;
}

/** A project folder; with `hooks`, our hooks in its .claude/settings.local.json as install writes them. */
function projectFolder(hooks: boolean, forwarder: ForwarderTarget): string {
  const dir = fs.mkdtempSync(
    path.join(os.tmpdir(), `pitwall-bench-wait-${hooks ? "hooks" : "bare"}-`),
  );
  execFileSync("git", ["init", "-q", "-b", "bench"], { cwd: dir });
  fs.writeFileSync(path.join(dir, "notes.txt"), "throughput sweep notes\n".repeat(20));
  if (hooks) {
    fs.mkdirSync(path.join(dir, ".claude"));
    fs.writeFileSync(
      path.join(dir, ".claude", "settings.local.json"),
      `${JSON.stringify(withOurHooks({}, hookFile, 600, forwarder), null, 2)}\n`,
    );
  }
  return dir;
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

const sorted = (xs: number[]) => Float64Array.from(xs).sort();

export const scenario = {
  name: "agent-hook-wait",
  description:
    "what the Claude Code hooks add to a person's wait per tool call (real claude -p, interleaved with/without hooks)",
  async run(opts: { full: boolean; log: (line: string) => void }): Promise<void> {
    const claude = ensureAgentCli("@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude");
    const rounds = opts.full ? 10 : 2;
    const perRun = opts.full ? 20 : 10;
    const pitwalls = await startPitwalls();
    // The hooks' local forwarder on a port of its own (not the default one a person's hooks use).
    const forwarderPort = await freePort();
    const forwarderDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-bench-wait-fwd-"));
    const temp: string[] = [forwarderDir];
    // As install does: the forwarder's secret in its folder and in the hooks' header.
    const forwarder = { port: forwarderPort, secret: ensureForwarderSecret(forwarderDir).secret };
    const rows: string[] = [];
    opts.log(
      `agent-hook-wait: Claude Code ${CLAUDE_CODE_VERSION}, ${rounds} rounds x ${perRun} calls per case and variant; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; ${new Date().toISOString()}`,
    );
    opts.log(`  targets: added by the hooks p50 < 50 ms, p99 < 150 ms`);
    try {
      // `--cases Read:up,TodoWrite:hung` runs only those (when run alone).
      const only =
        process.argv.find((a, i) => process.argv[i - 1] === "--cases")?.split(",") ?? null;
      for (const c of CASES.filter((x) => !only || only.includes(`${x.tool}:${x.pitwall}`))) {
        const bare = projectFolder(false, forwarder);
        const hooked = projectFolder(true, forwarder);
        const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-bench-wait-state-"));
        temp.push(bare, hooked, stateDir);
        const env = {
          PITWALL_URL: pitwalls.urls[c.pitwall],
          PITWALL_TOKEN: "bench",
          PITWALL_AGENT_STATE_DIR: stateDir,
          PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
          PITWALL_SPOOL_RETRY_S: "5",
          PITWALL_FORWARDER_PORT: String(forwarderPort),
          PITWALL_FORWARDER_DIR: forwarderDir,
          PITWALL_FORWARDER_IDLE_S: "5",
        };
        const without: number[] = [];
        const withHooks: number[] = [];
        for (let r = 0; r < rounds; r++) {
          without.push(...(await oneRun(claude, c.tool, perRun, bare, env)));
          withHooks.push(...(await oneRun(claude, c.tool, perRun, hooked, env)));
        }
        const a = sorted(without);
        const b = sorted(withHooks);
        const d50 = percentile(b, 0.5) - percentile(a, 0.5);
        const d99 = percentile(b, 0.99) - percentile(a, 0.99);
        const ok = d50 < 50 && d99 < 150 ? "meets target" : "MISSES target";
        const line = `  ${c.tool.padEnd(10)} Pitwall ${c.pitwall.padEnd(4)} ${String(b.length).padStart(4)} calls  no hooks p50 ${fmt(percentile(a, 0.5))} p99 ${fmt(percentile(a, 0.99))} max ${fmt(a[a.length - 1]!)} ms | hooks p50 ${fmt(percentile(b, 0.5))} p99 ${fmt(percentile(b, 0.99))} max ${fmt(b[b.length - 1]!)} ms | added p50 ${fmt(d50)} p99 ${fmt(d99)} ms  ${ok}`;
        rows.push(line);
        opts.log(line);
      }
      opts.log(`  frames received by the 'up' Pitwall: ${pitwalls.received()}`);
    } finally {
      await pitwalls.close();
      for (const d of temp) fs.rmSync(d, { recursive: true, force: true });
    }
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await scenario.run({ full: process.argv.includes("--full"), log: (line) => console.log(line) });
  process.exit(0);
}
