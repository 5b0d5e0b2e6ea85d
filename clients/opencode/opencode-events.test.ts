import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";

import { checkFrame } from "@/lib/protocol";
import { fixturePath } from "@/test/support/fixtures";

import { opencodeEventFrames, PitwallPlugin, toolActivityFrame } from "./pitwall.js";

// The opencode plugin's reading of every event shape recorded from the real CLI
// (test/fixtures/agent-hooks, opencode 1.18.33), plus unknown fields and events, and its
// pitwall_propose_plan tool against a fake Pitwall.

const fixture = fixturePath("agent-hooks", "opencode-1.18.33_plugin_events.jsonl");
const recorded = fs
  .readFileSync(fixture, "utf8")
  .split("\n")
  .filter(Boolean)
  .map(
    (l) =>
      JSON.parse(l) as {
        _kind: string;
        event?: { type: string; properties: Record<string, unknown> };
      },
  )
  .filter((l) => l._kind === "event")
  .map((l) => l.event!);
const NOW = 1_796_150_000_000;
const SESSION = "ses_dcceca54dffe4UoIWf0KDeAiUU";

/** Runs events through the plugin's mapping like the plugin does (state carried along); every frame must pass the server's validation. */
function replay(
  events: Array<{ type?: string; properties?: Record<string, unknown> }>,
  facts = {},
) {
  let state: Record<string, unknown> = {
    seq: 0,
    tasks: [],
    waiting: false,
    plans: 0,
    lastPlan: null,
  };
  const frames: Array<Record<string, unknown>> = [];
  for (const event of events) {
    const out = opencodeEventFrames(event, state, NOW, facts);
    if (!out) continue;
    for (const f of out.frames) expect(checkFrame(f)).toMatchObject({ ok: true });
    frames.push(...out.frames);
    state = out.state;
  }
  return { frames, state };
}

describe("recorded opencode 1.18.33 plugin events", () => {
  test("session.created → idle with the directory; busy → working once (repeats dropped); todo.updated → a snapshot; idle → idle once", () => {
    const { frames } = replay(recorded, { cwd: "/home/dev/work/monitor" });
    expect(frames.map((f) => [f.type, f.state ?? f.seq])).toEqual([
      ["session.activity", "idle"],
      ["session.activity", "working"],
      ["session.todos", 1],
      ["session.activity", "idle"],
    ]);
    expect(frames[0]).toMatchObject({
      session: SESSION,
      source: "opencode",
      cwd: "/home/dev/work/monitor",
      detail: "session created",
    });
    expect(frames[2]).toEqual({
      v: 1,
      id: `oc:${SESSION}:todos:1`,
      type: "session.todos",
      session: SESSION,
      source: "opencode",
      seq: 1,
      ts: NOW,
      items: [
        { content: "Install boto3", status: "in_progress", priority: "high" },
        { content: "Rewrite monitor.py", status: "pending", priority: "high" },
      ],
    });
  });
});

describe("other and future shapes", () => {
  const p = { sessionID: "ses_1" };

  test("errors, permission prompts and deletion change the state; a busy after a permission prompt is working again", () => {
    const { frames } = replay([
      { type: "session.status", properties: { ...p, status: { type: "busy" } } },
      {
        type: "permission.asked",
        properties: { ...p, permission: "bash", patterns: ["rm -rf build"] },
      },
      { type: "session.status", properties: { ...p, status: { type: "busy" } } },
      {
        type: "session.error",
        properties: { ...p, error: { name: "APIError", data: { message: "rate limited" } } },
      },
      { type: "session.deleted", properties: { info: { id: "ses_1" } } },
    ]);
    expect(frames.map((f) => [f.state, f.detail])).toEqual([
      ["working", undefined],
      ["waiting", "permission: bash"],
      ["working", undefined],
      ["idle", "rate limited"],
      ["ended", undefined],
    ]);
  });

  test("unknown events, events without a session and unknown fields are ignored; unknown todo fields are dropped", () => {
    expect(
      opencodeEventFrames(
        { type: "message.part.updated", properties: { ...p, part: {} } },
        {},
        NOW,
      ),
    ).toBeNull();
    expect(
      opencodeEventFrames(
        { type: "something.new.2027", properties: { ...p, anything: [1] } },
        {},
        NOW,
      ),
    ).toBeNull();
    expect(
      opencodeEventFrames({ type: "todo.updated", properties: { todos: [] } }, {}, NOW),
    ).toBeNull();
    expect(opencodeEventFrames(null, {}, NOW)).toBeNull();
    expect(
      opencodeEventFrames(
        { type: "session.status", properties: { ...p, status: { type: "compacting" } } },
        {},
        NOW,
      ),
    ).toEqual({ frames: [], state: {} });
    const { frames } = replay([
      {
        type: "todo.updated",
        properties: {
          ...p,
          future: true,
          todos: [
            { id: "t1", content: "A", status: "in_progress", priority: "low", colour: "red" },
            "junk",
          ],
        },
      },
    ]);
    expect(frames[0]!.items).toEqual([
      { id: "t1", content: "A", status: "in_progress", priority: "low" },
      { content: "", status: "pending" },
    ]);
  });
});

describe("pitwall_propose_plan against a fake Pitwall", () => {
  const saved = { ...process.env };
  let fake: http.Server | null = null;
  afterEach(async () => {
    process.env = { ...saved };
    await new Promise<void>((r) => (fake ? fake.close(() => r()) : r()));
    fake = null;
  });

  test("waiting while the plan waits, the plan proposed, working again once decided; the model gets the decision; activity names the git branch", async () => {
    const received: Array<Record<string, unknown>> = [];
    fake = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        if (req.method === "POST") {
          const frames = JSON.parse(body) as Array<Record<string, unknown>>;
          received.push(...frames);
          res.end(JSON.stringify({ results: frames.map((f) => ({ ok: true, id: f.id })) }));
        } else {
          res.end(
            JSON.stringify({
              status: "approved",
              decision: {
                decision: "approved",
                items: [{ content: "Warm up" }, { content: "Sweep" }],
                comment: null,
                decidedBy: "ada",
              },
            }),
          );
        }
      });
    });
    await new Promise<void>((r) => fake!.listen(0, "127.0.0.1", r));
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-oc-unit-"));
    Object.assign(process.env, {
      PITWALL_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
      PITWALL_TOKEN: "pw_test",
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      PITWALL_PLAN_TIMEOUT_S: "30",
    });
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-oc-unit-proj-"));
    fs.mkdirSync(path.join(project, ".git"));
    fs.writeFileSync(path.join(project, ".git", "HEAD"), "ref: refs/heads/prefill-sweep\n");
    const hooks = await PitwallPlugin({ directory: project });
    const answer = await hooks.tool!.pitwall_propose_plan.execute(
      { plan: "# Sweep\n1. Warm up\n2. Sweep\n" },
      { sessionID: "ses_plan" },
    );
    expect(answer).toBe("APPROVED. Carry out this plan:\n# Sweep\n1. Warm up\n2. Sweep\n");
    expect(received.map((f) => [f.type, f.state ?? f.plan])).toEqual([
      ["session.activity", "waiting"],
      ["plan.propose", "oc:ses_plan:plan:1"],
      ["session.activity", "working"],
    ]);
    for (const f of received) expect(checkFrame(f)).toMatchObject({ ok: true });
    // Activity carries the project folder and its git branch (a session is named by them).
    await hooks.event({
      event: {
        type: "session.created",
        properties: { sessionID: "ses_plan", info: { id: "ses_plan", directory: project } },
      },
    });
    expect(received.at(-1)).toMatchObject({
      type: "session.activity",
      state: "idle",
      cwd: project,
      gitBranch: "prefill-sweep",
    });
    received.pop();
    // The agent's next step (opencode says "busy") does not repeat "working".
    await hooks.event({
      event: {
        type: "session.status",
        properties: { sessionID: "ses_plan", status: { type: "busy" } },
      },
    });
    expect(received).toHaveLength(3);
  });
});

describe("tool runs while a plan waits (worked without approval)", () => {
  const pending = { lastPlan: { key: "oc:ses_1:plan:1", decision: null } };
  test("bash or edit while the plan is undecided: a session.activity naming the tool", () => {
    const f = toolActivityFrame({ tool: "bash", sessionID: "ses_1" }, pending, 1_796_150_000_000);
    expect(f).toMatchObject({ type: "session.activity", session: "ses_1", tool: "bash" });
    expect(checkFrame(f)).toMatchObject({ ok: true });
  });
  test("read tools, decided plans and no plan: nothing", () => {
    expect(toolActivityFrame({ tool: "read", sessionID: "ses_1" }, pending, 1)).toBeNull();
    const decided = { lastPlan: { key: "k", decision: "approved" } };
    expect(toolActivityFrame({ tool: "bash", sessionID: "ses_1" }, decided, 1)).toBeNull();
    expect(toolActivityFrame({ tool: "bash", sessionID: "ses_1" }, {}, 1)).toBeNull();
  });
});
