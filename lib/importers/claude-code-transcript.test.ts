import { describe, expect, test } from "vitest";

import { itemHistories } from "../metrics/todos";
import { sessionTodosFrame, type SessionTodosFrame } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import {
  parseClaudeCodeTranscript,
  parseTranscriptTimestamp,
  recognisesClaudeCodeTranscript,
} from "./claude-code-transcript";
import { importSessionFiles, type ImportedSession } from "./index";
import { fixture, fixtureFiles } from "./testing";

const FOLDER = "claude-code-transcript";
const NAME = "claude-code-log_todowrite_examples_v1.0.24.jsonl";

function expectValidTodoFrames(frames: readonly SessionTodosFrame[]): void {
  for (const frame of frames) {
    const check = sessionTodosFrame.safeParse(frame);
    expect(check.success ? "ok" : check.error.message).toBe("ok");
    expect(frame.id.length).toBeLessThanOrEqual(200);
  }
}

const iso = (h: number, m: number, s = 0) =>
  `2026-01-10T${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.000Z`;
const ms = (h: number, m: number, s = 0) => Date.UTC(2026, 0, 10, h, m, s);

describe("Claude Code 1.0.24 fixture (old item shape, toolUseResult oldTodos/newTodos)", () => {
  const file = fixture(FOLDER, NAME);

  test("one session, one snapshot per TodoWrite call and result pair", () => {
    expect(fixtureFiles(FOLDER).map((f) => f.path)).toEqual([file.path]);
    expect(recognisesClaudeCodeTranscript(file.text)).toBe(true);
    const { sessions, problems } = importSessionFiles([file]);
    expect(problems).toEqual([]);
    expect(sessions).toHaveLength(1);
    const session = sessions[0] as ImportedSession;
    expect(session).toMatchObject({
      sessionKey: "claude-code:todowrite_session",
      source: "claude-code",
      // The summary line's leafUuid (assistant_006) is a line of this session.
      title: "Feature Implementation with Task Management",
      format: "claude-code-transcript",
      snapshotCount: 3,
    });
    expectValidTodoFrames(session.frames);
    // seq = the tool_use line; ts = its timestamp (10:00:10, 10:02:00, 10:04:00 UTC).
    expect(session.frames.map((f) => [f.seq, f.ts])).toEqual([
      [3, Date.UTC(2025, 5, 14, 10, 0, 10)],
      [6, Date.UTC(2025, 5, 14, 10, 2, 0)],
      [10, Date.UTC(2025, 5, 14, 10, 4, 0)],
    ]);
    const [first, second, third] = session.frames as [
      SessionTodosFrame,
      SessionTodosFrame,
      SessionTodosFrame,
    ];
    expect(first.items.map((i) => i.status)).toEqual([
      "pending",
      "pending",
      "pending",
      "pending",
      "pending",
    ]);
    expect(first.items[0]).toEqual({
      content: "Design the feature architecture",
      status: "pending",
      id: "1",
      priority: "high",
    });
    expect(second.items.map((i) => [i.id, i.status])).toEqual([
      ["1", "completed"],
      ["2", "in_progress"],
      ["3", "pending"],
      ["4", "pending"],
      ["5", "pending"],
    ]);
    expect(third.items).toHaveLength(6);
    expect(third.items.map((i) => i.status)).toEqual([
      "completed",
      "completed",
      "in_progress",
      "pending",
      "pending",
      "pending",
    ]);
    expect(third.items[5]).toEqual({
      content: "Conduct security review and penetration testing",
      status: "pending",
      id: "6",
      priority: "high",
    });
    expect(first.id).toMatch(/^claude-code:todowrite_session\/todos\/3\/[0-9a-f]{16}$/);
  });

  test("the snapshots give the item timeline the dashboard shows", () => {
    const session = importSessionFiles([file]).sessions[0] as ImportedSession;
    const now = Date.UTC(2025, 5, 14, 10, 10, 0);
    const histories = itemHistories(session.frames, now);
    expect(histories.map((h) => [h.content, h.startedMs, h.finishedMs, h.currentStatus])).toEqual([
      ["Design the feature architecture", null, Date.UTC(2025, 5, 14, 10, 2, 0), "completed"],
      [
        "Implement core functionality",
        Date.UTC(2025, 5, 14, 10, 2, 0),
        Date.UTC(2025, 5, 14, 10, 4, 0),
        "completed",
      ],
      ["Add comprehensive tests", Date.UTC(2025, 5, 14, 10, 4, 0), null, "in_progress"],
      ["Write user documentation", null, null, "pending"],
      ["Perform code review", null, null, "pending"],
      ["Conduct security review and penetration testing", null, null, "pending"],
    ]);
    // 10:00:10 → 10:02:00 pending, 10:02:00 → 10:04:00 in progress.
    expect(histories[1]?.timeInStatusMs).toEqual({
      pending: 110_000,
      in_progress: 120_000,
      completed: 0,
    });
  });

  test("re-import is identical; the same file under another path too", () => {
    const a = importSessionFiles([file]);
    const b = importSessionFiles([{ path: "elsewhere.jsonl", text: file.text }]);
    expect(stringifyJson(a.sessions.map((s) => s.frames))).toBe(
      stringifyJson(b.sessions.map((s) => s.frames)),
    );
  });
});

describe("current transcripts (content/status/activeForm)", () => {
  const SID = "7f3c9a2e-1b4d-4e8f-9c0a-5d6e7f8a9b0c";
  let uuid = 0;
  const envelope = (type: string, at: string | undefined, extra: Record<string, unknown>) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      userType: "external",
      cwd: "/work/pitwall",
      sessionId: SID,
      version: "2.0.34",
      gitBranch: "main",
      type,
      uuid: `u${++uuid}`,
      ...(at ? { timestamp: at } : {}),
      ...extra,
    });
  const call = (
    id: string,
    todos: unknown,
    at: string | undefined,
    extra: Record<string, unknown> = {},
  ) =>
    envelope("assistant", at, {
      message: {
        id: `msg_${id}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id, name: "TodoWrite", input: { todos } }],
      },
      ...extra,
    });
  const result = (
    id: string,
    oldTodos: unknown,
    newTodos: unknown,
    at: string | undefined,
    isError = false,
  ) =>
    envelope("user", at, {
      message: {
        role: "user",
        content: [
          {
            tool_use_id: id,
            type: "tool_result",
            content: isError ? "InputValidationError" : "Todos have been modified successfully.",
            ...(isError ? { is_error: true } : {}),
          },
        ],
      },
      ...(isError
        ? { toolUseResult: "Error: InputValidationError" }
        : { toolUseResult: { oldTodos, newTodos } }),
    });
  const item = (content: string, status: string, activeForm = `Doing: ${content}`) => ({
    content,
    status,
    activeForm,
  });

  const A = item("Run throughput benchmark C=1 to C=100", "in_progress");
  const B = item("Run long-context benchmark 30K/60K/100K", "pending");
  const lines = [
    /* 1 */ envelope("user", iso(10, 0), {
      message: {
        role: "user",
        content: "Benchmark Qwen3.6-27B on kpro5:\nthroughput sweep, then long context",
      },
    }),
    /* 2 */ call("toolu_1", [A, B], iso(10, 1)),
    /* 3 */ result("toolu_1", [], [A, B], iso(10, 1, 1)),
    /* 4 */ call(
      "toolu_2",
      [
        { ...A, status: "completed" },
        { ...B, status: "in_progress" },
      ],
      iso(10, 30),
    ),
    // The result is what the tool stored: it wins over the input when they differ.
    /* 5 */ result(
      "toolu_2",
      [A, B],
      [
        { ...A, status: "completed" },
        { ...B, status: "in_progress", activeForm: "Running long context" },
      ],
      iso(10, 30, 1),
    ),
    /* 6 */ call("toolu_3", [{ content: "x", status: "done" }], iso(10, 31)),
    /* 7 */ result("toolu_3", null, null, iso(10, 31, 1), true),
    /* 8 */ call("toolu_4", "oops", iso(10, 32)),
    /* 9 */ call("toolu_5", [A, { content: "no status" }], iso(10, 33)),
    /* 10 */ call(
      "toolu_6",
      [
        { ...A, status: "completed" },
        { ...B, status: "completed" },
      ],
      iso(11, 0),
    ),
    // Claude Code clears a list whose items are all completed: the input is the snapshot.
    /* 11 */ result("toolu_6", [A, B], [], iso(11, 0, 1)),
    /* 12 */ call("toolu_7", [item("Read sglang/bench_serving.py", "in_progress")], iso(11, 5), {
      isSidechain: true,
      agentId: "a1b2c3",
    }),
    // A result whose call is not in this file.
    /* 13 */ result("toolu_elsewhere", [], [item("Upload results to S3", "pending")], iso(11, 10)),
    /* 14 */ '{"type":"assist',
    /* 15 */ call(
      "toolu_8",
      [
        item(
          "Extract hidden states for 914K samples on 4 GPUs and upload each file to S3 wit",
          "failed",
        ),
      ],
      iso(11, 20),
    ),
    /* 16 */ JSON.stringify({ type: "ai-title", aiTitle: "Qwen benchmark sweep", sessionId: SID }),
  ];
  const text = `${lines.join("\n")}\n`;

  test("calls and results pair into snapshots; failed, malformed and cleared writes as documented", () => {
    const { sessions, problems } = importSessionFiles([{ path: "t.jsonl", text }]);
    expect(problems).toEqual([
      {
        file: "t.jsonl",
        line: 8,
        message: "TodoWrite toolu_4: todos is not an array (got a string); snapshot skipped",
      },
      {
        file: "t.jsonl",
        line: 9,
        message: "TodoWrite toolu_5: todos[1] has no 'status' string; snapshot skipped",
      },
      {
        file: "t.jsonl",
        line: 14,
        message: expect.stringMatching(/^not valid JSON: .*; skipped$/) as unknown as string,
      },
    ]);
    expect(sessions.map((s) => [s.sessionKey, s.title, s.snapshotCount])).toEqual([
      [`claude-code:${SID}`, "Qwen benchmark sweep", 5],
      [`claude-code:${SID}/agent-a1b2c3`, "Qwen benchmark sweep (subagent a1b2c3)", 1],
    ]);
    const [main, sub] = sessions as [ImportedSession, ImportedSession];
    expectValidTodoFrames([...main.frames, ...sub.frames]);
    expect(main.frames.map((f) => [f.seq, f.ts])).toEqual([
      [2, ms(10, 1)],
      [4, ms(10, 30)],
      [10, ms(11, 0)],
      [13, ms(11, 10)],
      [15, ms(11, 20)],
    ]);
    expect(main.frames[0]?.items).toEqual([A, B]);
    expect(main.frames[1]?.items[1]).toEqual({
      content: B.content,
      status: "in_progress",
      activeForm: "Running long context",
    });
    expect(main.frames[2]?.items.map((i) => i.status)).toEqual(["completed", "completed"]);
    expect(main.frames[3]?.items).toEqual([item("Upload results to S3", "pending")]);
    // Unknown statuses and cut-off content are kept as written.
    expect(main.frames[4]?.items).toEqual([
      item(
        "Extract hidden states for 914K samples on 4 GPUs and upload each file to S3 wit",
        "failed",
      ),
    ]);
    expect(sub.frames.map((f) => [f.seq, f.ts, f.items[0]?.content])).toEqual([
      [12, ms(11, 5), "Read sglang/bench_serving.py"],
    ]);
  });

  test("titles: /rename beats the AI title, which beats a summary, which beats the first prompt", () => {
    const titleOf = (t: string) => parseClaudeCodeTranscript("t.jsonl", t).sessions[0]?.title;
    const base = lines.slice(0, 3).join("\n");
    expect(titleOf(base)).toBe(
      "Benchmark Qwen3.6-27B on kpro5: throughput sweep, then long context",
    );
    const summary = JSON.stringify({
      type: "summary",
      summary: "Qwen3.6 throughput sweep",
      leafUuid: "u3",
    });
    const otherSummary = JSON.stringify({
      type: "summary",
      summary: "Another session",
      leafUuid: "not-here",
    });
    expect(titleOf(`${otherSummary}\n${summary}\n${base}`)).toBe("Qwen3.6 throughput sweep");
    const ai = JSON.stringify({ type: "ai-title", aiTitle: "AI title", sessionId: SID });
    const custom = JSON.stringify({
      type: "custom-title",
      customTitle: "kpro5 sweep",
      sessionId: SID,
    });
    expect(titleOf(`${summary}\n${base}\n${ai}`)).toBe("AI title");
    expect(titleOf(`${custom}\n${summary}\n${base}\n${ai}`)).toBe("kpro5 sweep");
    // A long first prompt is cut to 120 chars with an ellipsis; command wrappers are not prompts.
    const longPrompt = envelope("user", iso(9, 0), {
      message: { role: "user", content: "p".repeat(300) },
    });
    expect(titleOf(`${longPrompt}\n${base}`)).toBe(`${"p".repeat(119)}…`);
    const command = envelope("user", iso(9, 0), {
      message: { role: "user", content: "<command-name>/clear</command-name>" },
    });
    expect(titleOf(`${command}\n${base}`)).toBe(
      "Benchmark Qwen3.6-27B on kpro5: throughput sweep, then long context",
    );
  });

  test("timestamps: the call's, else its result's; none at all is a problem", () => {
    const t = [
      call("toolu_a", [A], undefined),
      result("toolu_a", [], [A], iso(12, 0)),
      call("toolu_b", [B], "yesterday"),
    ].join("\n");
    const parsed = parseClaudeCodeTranscript("t.jsonl", t);
    expect(parsed.sessions[0]?.snapshots.map((s) => [s.seq, s.ts])).toEqual([[1, ms(12, 0)]]);
    expect(parsed.problems).toEqual([
      {
        file: "t.jsonl",
        line: 3,
        message:
          "TodoWrite toolu_b: no ISO 'timestamp' on the call or its result; snapshot skipped",
      },
    ]);
    expect(parseTranscriptTimestamp("2025-06-29T12:48:17.113Z")).toBe(
      Date.UTC(2025, 5, 29, 12, 48, 17, 113),
    );
    expect(parseTranscriptTimestamp("2025-06-29T14:48:17+02:00")).toBe(
      Date.UTC(2025, 5, 29, 12, 48, 17),
    );
    expect(parseTranscriptTimestamp("2025-06-29 12:48:17")).toBeNull();
    expect(parseTranscriptTimestamp(1_750_000_000_000)).toBeNull();
  });

  test("a transcript that grew keeps its earlier snapshots' ids; a repeated tool_use is read once", () => {
    const upTo = (n: number) => ({ path: "t.jsonl", text: `${lines.slice(0, n).join("\n")}\n` });
    const ids = (n: number) =>
      importSessionFiles([upTo(n)]).sessions[0]?.frames.map((f) => f.id) ?? [];
    const early = ids(3);
    expect(early).toHaveLength(1);
    expect(ids(13).slice(0, 1)).toEqual(early);
    // The call alone (its result not written yet) gives the same snapshot as call + result.
    expect(ids(2)).toEqual(early);
    const repeated = `${lines.slice(0, 3).join("\n")}\n${lines[1]}\n`;
    expect(
      importSessionFiles([{ path: "t.jsonl", text: repeated }]).sessions[0]?.snapshotCount,
    ).toBe(1);
  });

  test("detection looks at the first 20 non-blank lines", () => {
    expect(recognisesClaudeCodeTranscript(text)).toBe(true);
    expect(
      recognisesClaudeCodeTranscript(
        JSON.stringify({ type: "summary", summary: "s", leafUuid: "x" }),
      ),
    ).toBe(true);
    expect(recognisesClaudeCodeTranscript(`${"not json\n".repeat(20)}${lines[0]}\n`)).toBe(false);
    expect(recognisesClaudeCodeTranscript(`${"not json\n".repeat(19)}${lines[0]}\n`)).toBe(true);
    expect(recognisesClaudeCodeTranscript('{"type":"user","sessionId":"s"}')).toBe(false);
  });
});
