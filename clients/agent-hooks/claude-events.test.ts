import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { checkFrame } from "@/lib/protocol";
import { fixturesDir } from "@/test/support/fixtures";

import {
  applyTaskTool,
  claudeActions,
  parseHookInput,
  type HookSessionState,
} from "./lib/claude-events.mjs";
import { decisionForAgent, planFromMarkdown } from "./lib/plan.mjs";

// The Claude Code hook's parsing of every event shape recorded from the real CLI
// (test/fixtures/agent-hooks, Claude Code 2.1.328), plus unknown fields and events.

const fixtureDir = path.join(fixturesDir, "agent-hooks");
const lines = (name: string) =>
  fs
    .readFileSync(path.join(fixtureDir, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const { _label, _t, ...event } = JSON.parse(l) as Record<string, unknown>;
      return { label: String(_label), event };
    });
const fresh = (): HookSessionState => ({
  seq: 0,
  tasks: [],
  waiting: false,
  plans: 0,
  lastPlan: null,
});
const ctx = { nowMs: 1_796_150_000_000, sendPrompts: false, gitBranch: "main" };

function run(event: Record<string, unknown>, state = fresh(), c = ctx) {
  const parsed = parseHookInput(JSON.stringify(event));
  if (!parsed.ok) throw new Error(parsed.error);
  const out = claudeActions(parsed.event, state, c);
  // Every frame the hook builds passes the server's own validation.
  for (const f of out.frames) expect(checkFrame(f)).toMatchObject({ ok: true });
  return out;
}

describe("recorded Claude Code 2.1.328 hook events", () => {
  const approved = lines("claude-code-2.1.328_hooks_plan-approved.jsonl");
  const byLabel = (label: string) => approved.find((l) => l.label === label)!.event;

  test("SessionStart → idle with cwd, project facts and branch; UserPromptSubmit → working without the prompt", () => {
    const start = run(byLabel("SessionStart"));
    expect(start.frames).toEqual([
      expect.objectContaining({
        type: "session.activity",
        session: "9e7f42ac-b411-4409-b4bb-4be8f97ec0f3",
        source: "claude-code",
        state: "idle",
        cwd: "/home/dev/work/bench",
        gitBranch: "main",
        ts: ctx.nowMs,
      }),
    ]);
    const prompt = run(byLabel("UserPromptSubmit"));
    expect(prompt.frames[0]).toMatchObject({ state: "working" });
    expect(JSON.stringify(prompt.frames)).not.toContain("run the benchmarks");
    // Opted in (PITWALL_SEND_PROMPTS=1): the prompt's first line is the title.
    expect(
      run(byLabel("UserPromptSubmit"), fresh(), { ...ctx, sendPrompts: true }).frames[0],
    ).toMatchObject({ title: "run the benchmarks" });
  });

  test("PostToolUse(TodoWrite) → a session.todos snapshot in order, seq counted per session", () => {
    const first = run(byLabel("PostToolUse-TodoWrite"));
    expect(first.frames).toEqual([
      {
        v: 1,
        id: "cc:9e7f42ac-b411-4409-b4bb-4be8f97ec0f3:todos:1",
        type: "session.todos",
        session: "9e7f42ac-b411-4409-b4bb-4be8f97ec0f3",
        source: "claude-code",
        seq: 1,
        ts: ctx.nowMs,
        items: [
          {
            content: "Run throughput benchmark C=1 to C=100",
            status: "in_progress",
            activeForm: "Running throughput benchmark",
          },
          { content: "Summarize results", status: "pending", activeForm: "Summarizing" },
        ],
      },
    ]);
    expect(run(byLabel("PostToolUse-TodoWrite"), first.state).frames[0]).toMatchObject({
      seq: 2,
      id: "cc:9e7f42ac-b411-4409-b4bb-4be8f97ec0f3:todos:2",
    });
  });

  test("PermissionRequest(ExitPlanMode) → the plan gate with the markdown plan; PreToolUse and PostToolUse(ExitPlanMode) send nothing", () => {
    const gate = run(byLabel("PermissionRequest-ExitPlanMode"));
    expect(gate.frames).toEqual([]);
    expect(gate.planGate).toEqual({
      plan: "# Plan\n1. Benchmark C=1..100\n2. Long-context 30K/60K/100K\n",
      planFilePath: "/home/dev/.claude/plans/run-the-benchmarks-indexed-diffie.md",
    });
    expect(run(byLabel("PreToolUse-ExitPlanMode")).frames).toEqual([]);
    expect(run(byLabel("PostToolUse-ExitPlanMode")).frames).toEqual([]);
  });

  test("Stop → idle; the denied-plan recording parses the same way", () => {
    expect(run(byLabel("Stop")).frames[0]).toMatchObject({ state: "idle" });
    for (const { event } of lines("claude-code-2.1.328_hooks_plan-denied.jsonl"))
      expect(() => run(event)).not.toThrow();
  });
});

describe("other and future shapes", () => {
  const base = { session_id: "s-1", transcript_path: "/t.jsonl", cwd: "/home/dev/work/monitor" };

  test("Notification: a permission prompt → waiting with its text; an idle prompt → idle; a later tool use → working again", () => {
    const waiting = run({
      ...base,
      hook_event_name: "Notification",
      message: "Claude needs your permission to use Bash",
      notification_type: "permission_prompt",
    });
    expect(waiting.frames[0]).toMatchObject({
      state: "waiting",
      detail: "Claude needs your permission to use Bash",
    });
    expect(waiting.state.waiting).toBe(true);
    expect(
      run(
        {
          ...base,
          hook_event_name: "PostToolUse",
          tool_name: "Bash",
          tool_input: { command: "ls" },
        },
        waiting.state,
      ).frames[0],
    ).toMatchObject({ state: "working" });
    expect(
      run({
        ...base,
        hook_event_name: "Notification",
        message: "Claude is waiting for your input",
        notification_type: "idle_prompt",
      }).frames[0],
    ).toMatchObject({ state: "idle" });
    // Other tools while working send nothing (no network on the hot path).
    expect(
      run({ ...base, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: {} }).frames,
    ).toEqual([]);
  });

  test("an Esc-interrupt (no Stop hook follows) is recognised from the next event: an interrupted tool call → idle; a failed one after a prompt → working; an API error ending the turn → idle", () => {
    // Shapes of Claude Code 2.1.332's PostToolUseFailure / StopFailure hook input (read from its bundled schema).
    const working = run({ ...base, hook_event_name: "UserPromptSubmit", prompt: "run the sweep" });
    expect(working.frames[0]).toMatchObject({ state: "working" });
    const interrupted = run(
      {
        ...base,
        hook_event_name: "PostToolUseFailure",
        tool_name: "Bash",
        tool_input: { command: "sleep 600" },
        tool_use_id: "toolu_1",
        error: "Interrupted by user",
        is_interrupt: true,
        duration_ms: 5123,
      },
      working.state,
    );
    expect(interrupted.frames).toHaveLength(1);
    expect(interrupted.frames[0]).toMatchObject({
      type: "session.activity",
      state: "idle",
      detail: "interrupted by the user (Bash)",
    });
    // A plain failure while working changes nothing; after a permission prompt it shows the prompt was answered.
    expect(
      run(
        {
          ...base,
          hook_event_name: "PostToolUseFailure",
          tool_name: "Bash",
          tool_input: {},
          error: "exit 1",
          is_interrupt: false,
        },
        working.state,
      ).frames,
    ).toEqual([]);
    const waiting = run({
      ...base,
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "make" },
    });
    expect(
      run(
        {
          ...base,
          hook_event_name: "PostToolUseFailure",
          tool_name: "Bash",
          tool_input: { command: "make" },
          error: "exit 2",
        },
        waiting.state,
      ).frames[0],
    ).toMatchObject({ state: "working" });
    expect(
      run({ ...base, hook_event_name: "StopFailure", error: "rate_limit" }, working.state)
        .frames[0],
    ).toMatchObject({ state: "idle", detail: "turn ended with an error: rate_limit" });
  });

  test("PermissionRequest for another tool → waiting for permission; SessionEnd → ended", () => {
    expect(
      run({
        ...base,
        hook_event_name: "PermissionRequest",
        tool_name: "Bash",
        tool_input: { command: "rm -rf build" },
      }).frames[0],
    ).toMatchObject({ state: "waiting", detail: "permission: Bash" });
    expect(
      run({ ...base, hook_event_name: "SessionEnd", reason: "prompt_input_exit" }).frames[0],
    ).toMatchObject({ state: "ended", detail: "prompt_input_exit" });
  });

  test("unknown events and unknown fields are ignored; unknown todo fields are dropped", () => {
    expect(run({ ...base, hook_event_name: "PreCompact", trigger: "auto" }).frames).toEqual([]);
    expect(
      run({ ...base, hook_event_name: "SomethingNew2027", anything: { nested: [1] } }).frames,
    ).toEqual([]);
    const out = run({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      future: true,
      tool_input: {
        todos: [
          { content: "A", status: "in_progress", activeForm: "Doing A", id: "7", colour: "red" },
        ],
      },
    });
    expect(out.frames[0]!.items).toEqual([
      { id: "7", content: "A", status: "in_progress", activeForm: "Doing A" },
    ]);
  });

  test("malformed stdin is refused with a reason (the hook then exits 0)", () => {
    expect(parseHookInput("{not json")).toEqual({ ok: false, error: "stdin is not JSON" });
    expect(parseHookInput("[1]")).toEqual({ ok: false, error: "stdin is not a JSON object" });
    expect(parseHookInput(JSON.stringify({ hook_event_name: "Stop" }))).toEqual({
      ok: false,
      error: "no session_id",
    });
  });

  test("TaskCreate / TaskUpdate keep the whole list in the state and send it each time", () => {
    const a = run({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "TaskCreate",
      tool_input: { subject: "Warm up", description: "…", activeForm: "Warming up" },
      tool_response: { task: { id: "1", subject: "Warm up" } },
    });
    const b = run(
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "TaskCreate",
        tool_input: { subject: "Sweep C=1..100" },
        tool_response: { task: { id: "2" } },
      },
      a.state,
    );
    const c = run(
      {
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "TaskUpdate",
        tool_input: { taskId: "1", status: "in_progress" },
      },
      b.state,
    );
    expect(c.frames[0]).toMatchObject({
      seq: 3,
      items: [
        { id: "1", content: "Warm up", status: "in_progress", activeForm: "Warming up" },
        { id: "2", content: "Sweep C=1..100", status: "pending" },
      ],
    });
    expect(
      applyTaskTool(c.state.tasks, "TaskUpdate", { taskId: "1", status: "deleted" }, {}),
    ).toEqual([{ id: "2", content: "Sweep C=1..100", status: "pending" }]);
    expect(
      applyTaskTool(c.state.tasks, "TaskUpdate", { taskId: "99", status: "completed" }, {}),
    ).toEqual(c.state.tasks);
  });
});

describe("plans", () => {
  const body = "# Plan\n1. Benchmark C=1..100\n   - detail\n2. Long-context 30K/60K/100K\n";
  test("markdown → title and top-level steps; no list → one step", () => {
    expect(planFromMarkdown(body)).toEqual({
      title: "Plan",
      items: [{ content: "Benchmark C=1..100" }, { content: "Long-context 30K/60K/100K" }],
    });
    expect(planFromMarkdown("Just do the sweep")).toEqual({
      title: "Just do the sweep",
      items: [{ content: "Just do the sweep" }],
    });
  });

  test("decisions → what the model reads", () => {
    const proposed = { ...planFromMarkdown(body), body };
    expect(
      decisionForAgent(
        { decision: "approved", items: proposed.items, comment: null, decidedBy: "alice" },
        proposed,
      ),
    ).toEqual({ allow: true, plan: body });
    const edited = decisionForAgent(
      {
        decision: "approved",
        items: [{ content: "Warm up" }, { content: "Benchmark C=1..100" }],
        comment: "go",
        decidedBy: "alice",
      },
      proposed,
    );
    expect(edited).toEqual({
      allow: true,
      plan: "# Plan\n\n1. Warm up\n2. Benchmark C=1..100\n\n\nNote from alice (approved in Pitwall): go\n",
    });
    const changes = decisionForAgent(
      { decision: "changes_requested", comment: "add a warmup step", decidedBy: "alice" },
      proposed,
    );
    expect(changes).toMatchObject({ allow: false });
    expect(!changes.allow && changes.message).toContain(
      "alice requested changes to this plan in Pitwall: add a warmup step",
    );
    expect(!changes.allow && changes.message).toContain("call ExitPlanMode again");
    const forOpencode = decisionForAgent(
      { decision: "changes_requested", comment: "add a warmup step", decidedBy: "alice" },
      proposed,
      "pitwall_propose_plan",
    );
    expect(!forOpencode.allow && forOpencode.message).toContain(
      "call pitwall_propose_plan again with the revised plan",
    );
    expect(
      decisionForAgent({ decision: "rejected", comment: null, decidedBy: null }, proposed),
    ).toMatchObject({ allow: false, message: expect.stringContaining("rejected") });
  });
});

describe("tool runs while a plan waits (worked without approval)", () => {
  const post = (tool_name: string) => ({
    session_id: "s-work",
    hook_event_name: "PostToolUse",
    tool_name,
    tool_input: {},
  });
  const pending = { ...fresh(), lastPlan: { key: "cc:s-work:plan:1", decision: null } };

  test("a Bash or Edit run while the plan is undecided names the tool", () => {
    for (const tool of ["Bash", "Edit", "Write"]) {
      const [frame] = run(post(tool), pending).frames;
      expect(frame).toMatchObject({ type: "session.activity", state: "working", tool });
    }
  });

  test("reading tools, decided plans and sessions without a plan send no tool", () => {
    expect(run(post("Read"), pending).frames).toEqual([]);
    const decided = { ...fresh(), lastPlan: { key: "k", decision: "approved" } };
    expect(run(post("Bash"), decided).frames).toEqual([]);
    expect(run(post("Bash")).frames).toEqual([]);
  });
});
