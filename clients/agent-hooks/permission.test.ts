import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import {
  callFingerprint,
  describeToolCall,
  permissionAnswer,
  stopStalePermissionGates,
} from "./lib/permission.mjs";

// What the permission gate shows a person and answers Claude Code (no server: pure helpers).

describe("describeToolCall", () => {
  test("AskUserQuestion: its questions, joined", () => {
    expect(
      describeToolCall("AskUserQuestion", {
        questions: [{ question: "Which range?" }, { question: "Which flags?" }],
      }),
    ).toEqual({ summary: "Which range? · Which flags?" });
  });
  test("Bash: the command's first line", () => {
    expect(describeToolCall("Bash", { command: "pytest -x\necho done" })).toEqual({
      summary: "pytest -x",
    });
  });
  test("Edit, MultiEdit and Write: a diff of the change", () => {
    const edit = describeToolCall("Edit", {
      file_path: "/w/a.py",
      old_string: "a = 1",
      new_string: "a = 2",
    });
    expect(edit.summary).toBe("Edit /w/a.py");
    expect(edit.diff).toBe("--- /w/a.py\n+++ /w/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2");
    expect(
      describeToolCall("MultiEdit", {
        file_path: "/w/a.py",
        edits: [
          { old_string: "x", new_string: "y" },
          { old_string: "p", new_string: "q" },
        ],
      }).diff,
    ).toContain("+q");
    expect(describeToolCall("Write", { file_path: "/w/new.txt", content: "hello" }).diff).toContain(
      "+hello",
    );
  });
  test("other tools: name and input, clipped", () => {
    expect(
      describeToolCall("mcp__db__query", { sql: "x".repeat(1000) }).summary.length,
    ).toBeLessThanOrEqual(300);
  });
});

describe("permissionAnswer", () => {
  const by = { decidedBy: "ana", message: null, editedInput: null };
  test("allow, allow with edited input (merged over the original), deny with the message", () => {
    expect(permissionAnswer({ ...by, decision: "allow" }, { command: "ls" })).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    expect(
      permissionAnswer(
        { ...by, decision: "allow", editedInput: { command: "ls -la" } },
        { command: "ls", description: "list" },
      )?.hookSpecificOutput.decision,
    ).toEqual({
      behavior: "allow",
      updatedInput: { command: "ls -la", description: "list" },
    });
    expect(
      permissionAnswer({ ...by, decision: "deny", message: "use the staging DB" }, {})
        ?.hookSpecificOutput.decision,
    ).toEqual({ behavior: "deny", message: "ana denied this in Pitwall: use the staging DB" });
  });
  test("no decision: no answer (never an approval by default)", () => {
    expect(permissionAnswer(null, {})).toBeNull();
  });
});

test("stale gates: PostToolUse of the same call stops its gate only; Stop stops all", () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-gates-"));
  const dir = path.join(stateDir, "permission-gates", "s1");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `101-${callFingerprint("Bash", { command: "ls" })}`), "1");
  fs.writeFileSync(path.join(dir, `102-${callFingerprint("Bash", { command: "pwd" })}`), "2");
  const stopped: number[] = [];
  stopStalePermissionGates(
    { stateDir },
    {
      hook_event_name: "PostToolUse",
      session_id: "s1",
      tool_name: "Bash",
      tool_input: { command: "ls" },
    },
    (pid) => stopped.push(pid),
  );
  expect(stopped).toEqual([101]);
  stopStalePermissionGates(
    { stateDir },
    { hook_event_name: "Notification", session_id: "s1" },
    (pid) => stopped.push(pid),
  );
  expect(stopped).toEqual([101]);
  stopStalePermissionGates({ stateDir }, { hook_event_name: "Stop", session_id: "s1" }, (pid) =>
    stopped.push(pid),
  );
  expect(stopped).toEqual([101, 102]);
});
