import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";

import { until } from "@/test/support/until";

import { ensureForwarderSecret } from "./lib/forwarder-secret.mjs";

// The local forwarder (lib/forwarder.mjs) as Claude Code's HTTP hooks meet it: a real
// `node claude-code.mjs forward` process and a receiver that acks like /api/ingest. It answers
// every hook at once, also while Pitwall hangs; it survives many hooks in a row and delivers each
// todo snapshot once, in order; a SessionStart command hook starts it (registering the session);
// the session's heartbeat starts it again when it is killed; with no live agent it exits when idle;
// a request without the install's secret (another local process) is refused and applies nothing.

const entry = path.resolve(import.meta.dirname, "claude-code.mjs");
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const c of cleanups) c();
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A receiver acking like /api/ingest; `hang` makes it accept and never answer. */
async function receiver(opts: { hang?: boolean } = {}) {
  const frames: Array<{ type: string; seq?: number; items?: Array<{ status: string }> }> = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      if (opts.hang) return;
      const got = JSON.parse(body) as typeof frames;
      frames.push(...got);
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ results: got.map(() => ({ ok: true })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, frames };
}

async function setup(pitwallUrl: string) {
  const port = await freePort();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-fwd-test-"));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const env = {
    ...process.env,
    PITWALL_URL: pitwallUrl,
    PITWALL_TOKEN: "t",
    PITWALL_AGENT_STATE_DIR: path.join(root, "state"),
    PITWALL_AGENT_CONFIG: path.join(root, "none.json"),
    PITWALL_FORWARDER_PORT: String(port),
    PITWALL_FORWARDER_DIR: path.join(root, "fwd"),
    PITWALL_FORWARDER_IDLE_S: "2",
    PITWALL_HEARTBEAT_S: "1",
    PITWALL_SPOOL_RETRY_S: "30",
  };
  // As `pitwall agent install` does: the forwarder's secret in its folder (the hooks' header carries it).
  const { secret } = ensureForwarderSecret(env.PITWALL_FORWARDER_DIR);
  secrets.set(port, secret);
  return { port, env, root };
}

const secrets = new Map<number, string>();

/** Posts one hook event as Claude Code's HTTP hook does (with the install's secret unless `secret` says otherwise); resolves {status, ms}. */
function postHook(
  port: number,
  event: object,
  urlPath = "/pitwall/claude-code",
  secret: string | null = secrets.get(port) ?? null,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(event);
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (secret !== null) headers["X-Pitwall-Forwarder-Secret"] = secret;
    const req = http.request(
      `http://127.0.0.1:${port}${urlPath}`,
      { method: "POST", headers },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Runs the command hook once with `event` on stdin, as Claude Code's command hook does. */
function commandHook(env: NodeJS.ProcessEnv, event: object): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, "claude-code"], {
      env,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("exit", (code) => resolve(code));
    child.stdin.end(JSON.stringify(event));
  });
}

const pidOf = (port: number) =>
  new Promise<number | null>((resolve) => {
    http
      .get(`http://127.0.0.1:${port}/pitwall/health`, (res) => {
        let b = "";
        res.on("data", (c: Buffer) => (b += c));
        res.on("end", () => resolve((JSON.parse(b) as { pid: number }).pid));
      })
      .on("error", () => resolve(null));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const todo = (i: number) => ({
  session_id: "fwd-s1",
  hook_event_name: "PostToolUse",
  tool_name: "TodoWrite",
  tool_input: { todos: [{ content: "sweep", status: i % 2 ? "completed" : "in_progress" }] },
});

test("started by SessionStart, it survives 300 hooks in a row, answers each at once and delivers every snapshot once, in order", async () => {
  const pitwall = await receiver();
  const { port, env } = await setup(pitwall.url);
  // The test process stands in for the agent: the registration names it as the agent's pid.
  expect(
    await commandHook(env, {
      session_id: "fwd-s1",
      hook_event_name: "SessionStart",
      source: "startup",
      cwd: process.cwd(),
    }),
  ).toBe(0);
  const pid = await pidOf(port);
  expect(pid).toBeGreaterThan(0);
  children.push({
    exitCode: null,
    kill: () => alive(pid!) && process.kill(pid!, "SIGKILL"),
  } as unknown as ChildProcess);
  const ms: number[] = [];
  for (let i = 1; i <= 300; i++) {
    const r = await postHook(port, todo(i));
    expect(r.status).toBe(200);
    ms.push(r.ms);
  }
  // A Read's PostToolUse: answered, nothing sent.
  expect(
    (
      await postHook(port, {
        session_id: "fwd-s1",
        hook_event_name: "PostToolUse",
        tool_name: "Read",
        tool_input: {},
      })
    ).status,
  ).toBe(200);
  // Another local process without the secret (none, or a wrong one): refused, nothing applied or sent.
  const injected = {
    session_id: "fwd-s1",
    hook_event_name: "PostToolUse",
    tool_name: "TodoWrite",
    tool_input: { todos: [{ content: "injected", status: "pending" }] },
  };
  expect((await postHook(port, injected, undefined, null)).status).toBe(401);
  expect((await postHook(port, injected, undefined, "0".repeat(64))).status).toBe(401);
  // Nor can it register a session with a config of its own (its URL, its state folder).
  const evil = {
    session: "fwd-evil",
    agentPid: process.pid,
    cfg: {
      url: pitwall.url,
      token: "t",
      stateDir: path.join(os.tmpdir(), "pitwall-evil"),
      forwarderSecret: "e".repeat(64),
    },
  };
  expect((await postHook(port, evil, "/pitwall/register", "e".repeat(64))).status).toBe(401);
  expect(
    (
      await postHook(
        port,
        { session_id: "fwd-evil", hook_event_name: "UserPromptSubmit", prompt: "x" },
        undefined,
        "e".repeat(64),
      )
    ).status,
  ).toBe(401);
  await until(
    "300 snapshots",
    async () => pitwall.frames.filter((f) => f.type === "session.todos").length >= 300,
    60_000,
  );
  const seqs = pitwall.frames.filter((f) => f.type === "session.todos").map((f) => f.seq);
  expect(seqs).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  expect(JSON.stringify(pitwall.frames)).not.toContain("injected");
  expect(await pidOf(port)).toBe(pid); // the same process served them all
  ms.sort((a, b) => a - b);
  expect(ms[Math.floor(ms.length / 2)]).toBeLessThan(50);
}, 120_000);

test("Pitwall hung: hooks are still answered at once; killed, the forwarder is started again by the session's heartbeat; with no live agent it exits when idle", async () => {
  const hung = await receiver({ hang: true });
  const { port, env } = await setup(hung.url);
  // A stand-in agent process, so the heartbeat (and the forwarder's idle rule) has someone to watch.
  const agent = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
    stdio: "ignore",
  });
  children.push(agent);
  // The SessionStart hook as the agent's child: its parent is the agent.
  const hookUnderAgent = spawn(
    process.execPath,
    [
      "-e",
      `const {spawn}=require("node:child_process");const c=spawn(process.execPath,[${JSON.stringify(entry)},"claude-code"],{stdio:["pipe","ignore","ignore"],env:process.env});c.stdin.end(${JSON.stringify(JSON.stringify({ session_id: "fwd-s2", hook_event_name: "SessionStart", source: "startup" }))});c.on("exit",()=>process.exit(0))`,
    ],
    { env, stdio: "ignore" },
  );
  await new Promise((r) => hookUnderAgent.on("exit", r));
  const first = await pidOf(port);
  expect(first).toBeGreaterThan(0);
  for (let i = 1; i <= 20; i++)
    expect((await postHook(port, { ...todo(i), session_id: "fwd-s2" })).ms).toBeLessThan(500);
  // The heartbeat belongs to the hook's parent here (the stand-in launcher), which is gone; start one for the stand-in agent.
  const beat = spawn(process.execPath, [entry, "heartbeat", "fwd-s2", String(agent.pid)], {
    env,
    stdio: "ignore",
  });
  children.push(beat);
  process.kill(first!, "SIGKILL");
  await until(
    "the forwarder started again",
    async () => {
      const p = await pidOf(port);
      return p !== null && p !== first;
    },
    20_000,
  );
  const second = (await pidOf(port))!;
  // The agent ends: the heartbeat stops, the forwarder exits after its idle time (2 s).
  agent.kill("SIGKILL");
  await until("the forwarder exits when idle", async () => !alive(second), 20_000);
  expect(await pidOf(port)).toBeNull();
}, 120_000);
