import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import { checkFrame } from "@/lib/protocol";
import { until } from "@/test/support/until";

// The hook's background heartbeat process, for real: started as the hook starts it, it posts a
// `heartbeat` naming the session every PITWALL_HEARTBEAT_S while the agent process lives, and
// exits once that process is gone (a killed agent then goes "no signal" in Pitwall).

const hook = path.resolve(import.meta.dirname, "claude-code.mjs");

test("heartbeats while the agent lives; the heartbeat process ends when the agent is killed", async () => {
  const bodies: Array<Array<Record<string, unknown>>> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const frames = JSON.parse(text) as Array<Record<string, unknown>>;
      bodies.push(frames);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ results: frames.map((f) => ({ id: f.id, ok: true })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = spawn("sleep", ["600"], { stdio: "ignore" });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-hb-"));
  const beat = spawn(process.execPath, [hook, "heartbeat", "sess-1", String(agent.pid)], {
    env: {
      ...process.env,
      PITWALL_URL: url,
      PITWALL_TOKEN: "pw_x",
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      PITWALL_HEARTBEAT_S: "1",
    },
    stdio: "ignore",
  });
  const exited = new Promise<number>((r) => beat.on("exit", () => r(Date.now())));
  try {
    await until("three heartbeats", async () => bodies.length >= 3, 20_000);
    for (const frames of bodies) {
      expect(frames).toHaveLength(1);
      expect(frames[0]).toMatchObject({ type: "heartbeat", sessions: ["sess-1"] });
      expect(checkFrame(frames[0])).toMatchObject({ ok: true });
    }
    expect(fs.readFileSync(path.join(stateDir, "heartbeats", "sess-1.pid"), "utf8")).toBe(
      String(beat.pid),
    );
    const killedAt = Date.now();
    agent.kill("SIGKILL");
    const endedAt = await exited;
    expect(endedAt - killedAt).toBeLessThan(5000);
    expect(fs.existsSync(path.join(stateDir, "heartbeats", "sess-1.pid"))).toBe(false);
  } finally {
    agent.kill("SIGKILL");
    beat.kill("SIGKILL");
    server.close();
  }
}, 60_000);

test("for opencode (no session-end hook) the heartbeat process reports the session ended once the agent process is gone", async () => {
  const bodies: Array<Array<Record<string, unknown>>> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const frames = JSON.parse(text) as Array<Record<string, unknown>>;
      bodies.push(frames);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ results: frames.map((f) => ({ id: f.id, ok: true })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = spawn("sleep", ["600"], { stdio: "ignore" });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-hb-"));
  const beat = spawn(
    process.execPath,
    [hook, "heartbeat", "ses_oc1", String(agent.pid), "opencode"],
    {
      env: {
        ...process.env,
        PITWALL_URL: url,
        PITWALL_TOKEN: "pw_x",
        PITWALL_AGENT_STATE_DIR: stateDir,
        PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
        PITWALL_HEARTBEAT_S: "30",
      },
      stdio: "ignore",
    },
  );
  try {
    await until("the first heartbeat", async () => bodies.length >= 1, 20_000);
    agent.kill("SIGKILL");
    const ended = await until(
      "the ended frame",
      async () => bodies.flat().find((f) => f.type === "session.activity"),
      10_000,
    );
    expect(ended).toMatchObject({
      type: "session.activity",
      session: "ses_oc1",
      source: "opencode",
      state: "ended",
      detail: "the agent process ended",
    });
    expect(checkFrame(ended)).toMatchObject({ ok: true });
  } finally {
    agent.kill("SIGKILL");
    beat.kill("SIGKILL");
    server.close();
  }
}, 60_000);
