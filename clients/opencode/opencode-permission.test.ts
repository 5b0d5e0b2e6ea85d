import { describe, expect, test } from "vitest";

import { describeOpencodePermission, opencodeReply } from "./permission.js";

// How an opencode 1.18 `permission.asked` request becomes an inbox item, and a Pitwall decision
// an opencode reply (pure helpers; the real round trip is opencode-permission.real-cli.slow.test.ts).

describe("describeOpencodePermission", () => {
  test("a shell command reaching outside the project (external_directory): the command is the subject", () => {
    const d = describeOpencodePermission({
      id: "per_1",
      sessionID: "ses_1",
      permission: "external_directory",
      patterns: ["/tmp/outside/*"],
      metadata: { command: "cat /tmp/outside/notes.txt", directories: ["/tmp/outside"] },
      always: ["/tmp/outside/*"],
    });
    expect(d).toEqual({
      toolName: "external_directory",
      summary: "outside the project: /tmp/outside/* (cat /tmp/outside/notes.txt)",
      input: {
        permission: "external_directory",
        patterns: ["/tmp/outside/*"],
        command: "cat /tmp/outside/notes.txt",
      },
    });
  });
  test("bash and read: `command` / `filePath` in the input, so inbox rules match them", () => {
    expect(
      describeOpencodePermission({
        permission: "bash",
        patterns: ["pytest *"],
        metadata: { command: "pytest -x" },
      }),
    ).toMatchObject({
      toolName: "bash",
      summary: "bash: pytest -x",
      input: { command: "pytest -x" },
    });
    expect(
      describeOpencodePermission({
        permission: "read",
        patterns: ["/w/.env"],
        metadata: { filepath: "/w/.env" },
      }),
    ).toMatchObject({ toolName: "read", summary: "read: /w/.env", input: { filePath: "/w/.env" } });
  });
  test("an edit's diff is shown; odd input never throws", () => {
    expect(
      describeOpencodePermission({
        permission: "edit",
        patterns: ["a.py"],
        metadata: { filepath: "/w/a.py", diff: "-a\n+b" },
      }).diff,
    ).toBe("-a\n+b");
    expect(describeOpencodePermission(null)).toMatchObject({
      toolName: "tool",
      summary: "tool: tool",
    });
  });
});

describe("opencodeReply", () => {
  const base = { message: null, editedInput: null, decidedBy: "Ana", decidedAt: "x" };
  test("allow replies once; deny rejects with the message the model reads", () => {
    expect(opencodeReply({ ...base, decision: "allow" })).toEqual({ reply: "once" });
    expect(opencodeReply({ ...base, decision: "deny", message: "not now" })).toEqual({
      reply: "reject",
      message: "Ana denied this in Pitwall: not now",
    });
  });
  test("an edited command cannot be applied by opencode: rejected with the edit for the model; no decision, no reply", () => {
    expect(
      opencodeReply({ ...base, decision: "allow", editedInput: { command: "pytest -x" } }),
    ).toEqual({
      reply: "reject",
      message: "Ana approved an edited version in Pitwall: run exactly this instead: pytest -x",
    });
    expect(opencodeReply(null)).toBeNull();
  });
});
