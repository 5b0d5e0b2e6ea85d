import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import { checkFrame } from "@/lib/protocol";

import { claudeActions, type HookSessionState } from "./lib/claude-events.mjs";
import { readTaskDir, taskDirOf, taskItemsFor } from "./lib/claude-tasks.mjs";
import { withSessionLock } from "./lib/session-lock.mjs";

// Claude Code 2.1.332's default todo tools (TaskCreate / TaskUpdate / TaskList), from PostToolUse
// events recorded from the real CLI (fixtures/SOURCE.txt), into whole-list todo snapshots.

const events = fs
  .readFileSync(
    path.join(import.meta.dirname, "fixtures", "claude-code-2.1.332_posttooluse_tasks.jsonl"),
    "utf8",
  )
  .split("\n")
  .filter(Boolean)
  .map(
    (l) =>
      JSON.parse(l) as Record<string, unknown> & {
        session_id: string;
        hook_event_name: string;
        tool_name: string;
      },
  );
const fresh = (): HookSessionState => ({
  seq: 0,
  tasks: [],
  waiting: false,
  plans: 0,
  lastPlan: null,
});
const ctx = { nowMs: 1_796_150_000_000, sendPrompts: false };

/** Claude Code's task folder as it stood after a call: one file per task. */
function taskFolder(
  tasks: Array<{ id: string; subject: string; status: string; activeForm?: string }>,
): string {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-cc-config-"));
  const dir = path.join(config, "tasks", events[0]!.session_id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, ".highwatermark"), String(tasks.length));
  for (const t of tasks)
    fs.writeFileSync(
      path.join(dir, `${t.id}.json`),
      JSON.stringify({ ...t, description: "d", blocks: [], blockedBy: [] }, null, 2),
    );
  return config;
}

test("the recorded Task* calls, without the task folder, build the list from inputs and responses: create, update, list, parallel updates, delete", () => {
  let state = fresh();
  const sent: Array<Array<{ id?: string; content: string; status: string }>> = [];
  for (const event of events) {
    const out = claudeActions(event, state, {
      ...ctx,
      taskItems: taskItemsFor(event, { HOME: "/nonexistent" }),
    });
    for (const f of out.frames) expect(checkFrame(f)).toMatchObject({ ok: true });
    sent.push(
      ...out.frames.map((f) => f.items as Array<{ id?: string; content: string; status: string }>),
    );
    state = out.state;
  }
  const statuses = sent.map((items) => items.map((i) => `${i.id}:${i.status}`).join(" "));
  // TaskList repeats the list unchanged: nothing sent for it.
  expect(statuses).toEqual([
    "1:pending",
    "1:pending 2:pending",
    "1:in_progress 2:pending",
    "1:in_progress 2:in_progress",
    "1:completed 2:in_progress",
    "1:completed",
  ]);
  expect(sent[1]![0]).toMatchObject({ content: "Run bench C=1..100", activeForm: "Running bench" });
  expect(state.seq).toBe(6);
});

test("the task folder is read from the transcript's config dir (CLAUDE_CONFIG_DIR followed) and wins over the event; ids sort numerically", () => {
  const config = taskFolder([
    { id: "10", subject: "Summarize", status: "pending" },
    { id: "2", subject: "Run bench C=1..100", status: "in_progress", activeForm: "Running bench" },
  ]);
  const event = {
    ...events[0]!,
    transcript_path: path.join(
      config,
      "projects",
      "-home-dev-work-bench",
      `${events[0]!.session_id}.jsonl`,
    ),
  };
  expect(taskDirOf(event, {})).toBe(path.join(config, "tasks", events[0]!.session_id));
  expect(taskDirOf({ session_id: "s1" }, { HOME: "/home/dev" })).toBe("/home/dev/.claude/tasks/s1");
  expect(
    taskDirOf({ session_id: "s1" }, { HOME: "/home/dev", CLAUDE_CODE_TASK_LIST_ID: "team-a" }),
  ).toBe("/home/dev/.claude/tasks/team-a");
  expect(taskDirOf({ session_id: "../x" }, { HOME: "/home/dev" })).toBeNull();
  const items = taskItemsFor(event, {});
  expect(items).toEqual([
    { id: "2", content: "Run bench C=1..100", status: "in_progress", activeForm: "Running bench" },
    { id: "10", content: "Summarize", status: "pending" },
  ]);
  // A half-written file is skipped, not fatal.
  fs.writeFileSync(path.join(config, "tasks", events[0]!.session_id, "11.json"), '{"id":');
  expect(readTaskDir(path.join(config, "tasks", events[0]!.session_id))).toHaveLength(2);
  const out = claudeActions(event, fresh(), { ...ctx, taskItems: items });
  expect(out.frames).toEqual([expect.objectContaining({ type: "session.todos", seq: 1, items })]);
  // The second of two parallel TaskUpdate hooks reads the same folder: nothing more is sent.
  expect(claudeActions(events[5]!, out.state, { ...ctx, taskItems: items }).frames).toEqual([]);
});

test("TaskList's response is the whole list when the folder is missing; other tools and events get no task list", () => {
  const list = events.find((e) => e.tool_name === "TaskList")!;
  expect(taskItemsFor(list, { HOME: "/nonexistent" })).toEqual([
    { id: "1", content: "Run bench C=1..100", status: "in_progress" },
    { id: "2", content: "Summarize", status: "pending" },
  ]);
  expect(taskItemsFor({ ...list, tool_name: "Bash" }, {})).toBeUndefined();
  expect(taskItemsFor({ ...list, hook_event_name: "PreToolUse" }, {})).toBeUndefined();
});

test("the session lock serialises concurrent read-modify-write (no lost update) and breaks a stale lock", async () => {
  const cfg = { stateDir: fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-lock-")) };
  let counter = 0;
  await Promise.all(
    Array.from({ length: 20 }, () =>
      withSessionLock(cfg, "s", async () => {
        const seen = counter;
        await new Promise((r) => setTimeout(r, 2));
        counter = seen + 1;
      }),
    ),
  );
  expect(counter).toBe(20);
  const stale = path.join(cfg.stateDir, "locks", "t.lock");
  fs.mkdirSync(stale, { recursive: true });
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(stale, old, old);
  const started = Date.now();
  expect(await withSessionLock(cfg, "t", () => "ran")).toBe("ran");
  expect(Date.now() - started).toBeLessThan(1000);
});
