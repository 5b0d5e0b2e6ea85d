import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { sessionTodosFrame, type SessionTodosFrame } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import {
  detectImportFormat,
  detectSessionFormat,
  importFiles,
  importSessionFiles,
  SessionImportError,
  UnknownFormatError,
  type ImportedSession,
} from "./index";
import { parseOpencodeExport, readTodoList, sessionKeyFor } from "./opencode-export";
import { fixture, fixtureFiles, fixturesDir } from "./testing";

const FOLDER = "opencode-export";
const head = fixture(FOLDER, "export_excerpt_head.json");
const partText = fixture(FOLDER, "todowrite_part_excerpt.json").text;
const realPart = JSON.parse(partText) as { sessionID: string; messageID: string; callID: string };

/** Asserts every frame is a valid `session.todos` frame (checkFrame does not accept the type yet). */
function expectValidTodoFrames(frames: readonly SessionTodosFrame[]): void {
  for (const frame of frames) {
    const check = sessionTodosFrame.safeParse(frame);
    expect(check.success ? "ok" : check.error.message).toBe("ok");
    expect(frame.id.length).toBeLessThanOrEqual(200);
  }
}

function only(sessions: ImportedSession[]): ImportedSession {
  expect(sessions).toHaveLength(1);
  return sessions[0] as ImportedSession;
}

/** An export as `opencode export` prints it (JSON.stringify indent 2 + newline). */
function exportText(info: Record<string, unknown>, messages: unknown[]): string {
  return `${JSON.stringify({ info, messages }, null, 2)}\n`;
}

const SESSION_INFO = {
  id: "ses_test1",
  slug: "calm-star",
  projectID: "p",
  directory: "/work/pitwall",
  title: "Benchmark Qwen3.6-27B",
  version: "1.18.30",
  time: { created: 1_788_982_379_742, updated: 1_788_982_404_239 },
};

function todowritePart(callID: string, state: Record<string, unknown>) {
  return {
    type: "tool",
    tool: "todowrite",
    callID,
    state,
    id: `prt_${callID}`,
    sessionID: SESSION_INFO.id,
    messageID: "msg_1",
  };
}
const done = (todos: unknown, start: number, extra: Record<string, unknown> = {}) => ({
  status: "completed",
  input: { todos },
  output: JSON.stringify(todos, null, 2),
  metadata: { todos, truncated: false },
  title: "n todos",
  time: { start, end: start + 18 },
  ...extra,
});

/** The real todowrite part (a second session of the source file) inside an export of its own session. */
function realPartExport(): string {
  const info = {
    ...JSON.parse(head.text).info,
    id: realPart.sessionID,
    title: "Audit summary route",
  };
  const message = {
    info: {
      role: "assistant",
      id: realPart.messageID,
      sessionID: realPart.sessionID,
      time: { created: 1_788_991_490_000 },
    },
    parts: [JSON.parse(partText)],
  };
  return exportText(info, [message]);
}

describe("opencode export fixtures", () => {
  test("the export head is recognised; it holds one session without a todowrite, so nothing is imported", () => {
    expect(fixtureFiles(FOLDER).map((f) => path.basename(f.path))).toEqual([
      "export_excerpt_head.json",
      "todowrite_part_excerpt.json",
    ]);
    expect(detectSessionFormat(head.text)).toBe("opencode-export");
    expect(parseOpencodeExport(head.path, head.text)).toEqual({ sessions: [], problems: [] });
    expect(importSessionFiles([head])).toEqual({
      sessions: [],
      problems: [
        {
          file: head.path,
          line: 0,
          message: "no usable todo-list write in this opencode export file; nothing imported",
        },
      ],
    });
    // A bare part is not an export.
    expect(detectSessionFormat(partText)).toBeNull();
  });

  test("the real todowrite part becomes one snapshot with its items, time and session", () => {
    const file = { path: "ses_f77cc.json", text: realPartExport() };
    const result = importSessionFiles([file]);
    expect(result.problems).toEqual([]);
    const session = only(result.sessions);
    expect(session).toMatchObject({
      sessionKey: "opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu",
      source: "opencode",
      title: "Audit summary route",
      format: "opencode-export",
      snapshotCount: 1,
    });
    expectValidTodoFrames(session.frames);
    expect(session.frames[0]).toMatchObject({
      type: "session.todos",
      session: "opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu",
      source: "opencode",
      seq: 1,
      ts: 1_788_991_499_198, // state.time.start
      items: [
        { content: "Criar rota GET /api/v1/audit/summary", status: "completed", priority: "high" },
        { content: "Verificar rota com testes manuais", status: "in_progress", priority: "high" },
      ],
    });
    expect(session.frames[0]?.id).toMatch(
      /^opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu\/todos\/1\/[0-9a-f]{16}$/,
    );
  });

  test("exports appended to one file are read one after another (the source file held two sessions)", () => {
    const text = head.text + realPartExport();
    const headLines = head.text.split("\n").length - 1;
    const parsed = parseOpencodeExport("both.json", text);
    expect(parsed.problems).toEqual([]);
    expect(
      parsed.sessions.map((s) => [s.sessionKey, s.title, s.snapshots.map((x) => [x.seq, x.ts])]),
    ).toEqual([
      ["opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu", "Audit summary route", [[1, 1_788_991_499_198]]],
    ]);
    // The snapshot's line is the line of its callID in the file.
    const callLine = text.split("\n").findIndex((l) => l.includes(realPart.callID)) + 1;
    expect(callLine).toBeGreaterThan(headLines);
    expect(parsed.sessions[0]?.snapshots[0]?.line).toBe(callLine);
  });
});

describe("todowrite parts", () => {
  /** Epoch ms the synthetic message times below are offsets from (protocol times must fall in 2000..2100). */
  const T = 1_788_000_000_000;
  const list1 = [
    { content: "Run throughput benchmark C=1 to C=100", status: "in_progress", priority: "high" },
    {
      content: "Run long-context benchmark at 30K/60K/100K",
      status: "pending",
      priority: "medium",
    },
  ];
  const list2 = [
    { content: "Run throughput benchmark C=1 to C=100", status: "completed", priority: "high" },
    {
      content: "Run long-context benchmark at 30K/60K/100K input tok",
      status: "failed",
      priority: "medium",
    }, // truncated, unknown status
  ];
  const messages = [
    {
      info: { role: "user", id: "msg_0", sessionID: "ses_test1", time: { created: T + 1_000_000 } },
      parts: [{ type: "text", text: "benchmark it" }],
    },
    {
      info: {
        role: "assistant",
        id: "msg_1",
        sessionID: "ses_test1",
        time: { created: T + 2_000_000, completed: T + 9_000_000 },
      },
      parts: [
        { type: "step-start" },
        todowritePart("c1", done(list1, T + 2_000_100)),
        {
          type: "tool",
          tool: "todoread",
          callID: "r1",
          state: {
            status: "completed",
            input: {},
            output: "[]",
            time: { start: T + 2_000_150, end: T + 2_000_160 },
          },
        },
        todowritePart("c2", { status: "pending", input: {}, raw: '{"todos":[{"content":"Run' }),
        todowritePart("c3", {
          status: "error",
          input: { todos: "oops" },
          error: "Invalid input",
          time: { start: T + 2_000_200, end: T + 2_000_201 },
        }),
        todowritePart("c4", done({ content: "not a list" }, T + 2_000_300)),
        todowritePart("c5", done([{ content: "no status here" }], T + 2_000_400)),
        todowritePart("c6", done(list2, T + 2_000_500)),
      ],
    },
    {
      info: {
        role: "assistant",
        id: "msg_2",
        sessionID: "ses_test1",
        time: { created: T + 3_000_000 },
      },
      parts: [
        // Running (export taken mid-call): input and start time only.
        todowritePart("c7", {
          status: "running",
          input: {
            todos: [{ id: "7", content: "Upload results", status: "in_progress", priority: "low" }],
          },
          time: { start: T + 3_000_100 },
        }),
        // No time on the part: the message's creation time.
        todowritePart("c8", {
          status: "completed",
          input: { todos: [] },
          output: "[]",
          metadata: { todos: [] },
          title: "0 todos",
          time: {},
        }),
        // Compacted: no input todos left, metadata keeps them.
        todowritePart("c9", {
          status: "completed",
          input: {},
          metadata: { todos: list1 },
          time: { start: T + 3_000_300, end: T + 3_000_310, compacted: T + 9_000_000 },
        }),
      ],
    },
    {
      info: { role: "assistant", id: "msg_3", sessionID: "ses_test1" },
      parts: [todowritePart("c10", { status: "completed", input: { todos: list1 } })],
    },
  ];
  const text = exportText(SESSION_INFO, messages);
  const lineOf = (needle: string) =>
    text.split("\n").findIndex((l) => l.includes(`"${needle}"`)) + 1;

  test("one snapshot per usable call; seq counts every todowrite part; bad ones are problems at their callID line", () => {
    const { sessions, problems } = importSessionFiles([{ path: "s.json", text }]);
    expect(problems).toEqual([
      {
        file: "s.json",
        line: lineOf("c4"),
        message: "todowrite c4: todos is not an array (got an object); snapshot skipped",
      },
      {
        file: "s.json",
        line: lineOf("c5"),
        message: "todowrite c5: todos[0] has no 'status' string; snapshot skipped",
      },
      {
        file: "s.json",
        line: lineOf("c10"),
        message:
          "todowrite c10: no time (state.time.start/end or message time.created); snapshot skipped",
      },
    ]);
    const session = only(sessions);
    expect(session).toMatchObject({
      sessionKey: "opencode:ses_test1",
      title: "Benchmark Qwen3.6-27B",
      snapshotCount: 5,
    });
    expectValidTodoFrames(session.frames);
    expect(session.frames.map((f) => [f.seq, f.ts, f.items.length])).toEqual([
      [1, T + 2_000_100, 2],
      [6, T + 2_000_500, 2],
      [7, T + 3_000_100, 1],
      [8, T + 3_000_000, 0],
      [9, T + 3_000_300, 2],
    ]);
    // Unknown statuses and truncated content are kept as written.
    expect(session.frames[1]?.items).toEqual(list2);
    expect(session.frames[2]?.items).toEqual([
      { content: "Upload results", status: "in_progress", id: "7", priority: "low" },
    ]);
    expect(session.frames[4]?.items).toEqual(list1);
  });

  test("re-import is identical; paths and file order do not matter; title and host change the ids", () => {
    const a = importSessionFiles([{ path: "a/s.json", text }]);
    const b = importSessionFiles([{ path: "elsewhere/other-name.json", text }]);
    expect(stringifyJson(a.sessions.map((s) => s.frames))).toBe(
      stringifyJson(b.sessions.map((s) => s.frames)),
    );
    const other = { path: "z.json", text: realPartExport() };
    const ab = importSessionFiles([{ path: "s.json", text }, other]);
    const ba = importSessionFiles([other, { path: "s.json", text }]);
    expect(stringifyJson(ab)).toBe(stringifyJson(ba));
    expect(ab.sessions.map((s) => s.sessionKey)).toEqual([
      "opencode:ses_test1",
      "opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu",
    ]);

    const renamed = importSessionFiles([
      { path: "s.json", text: exportText({ ...SESSION_INFO, title: "Renamed" }, messages) },
    ]);
    const ids = (r: typeof a) => r.sessions.flatMap((s) => s.frames.map((f) => f.id));
    expect(ids(renamed)).toHaveLength(5);
    for (const id of ids(renamed)) expect(ids(a)).not.toContain(id);
    expect(renamed.sessions[0]?.frames.map((f) => f.seq)).toEqual(
      a.sessions[0]?.frames.map((f) => f.seq),
    );
    const hosted = importSessionFiles([{ path: "s.json", text }], { host: "kpro5" });
    expect(hosted.sessions[0]?.frames[0]).toMatchObject({ host: "kpro5" });
    expect(ids(hosted)[0]).not.toBe(ids(a)[0]);
    expect(() => importSessionFiles([{ path: "s.json", text }], { host: "bad host" })).toThrow(
      SessionImportError,
    );

    const twice = importSessionFiles([
      { path: "s.json", text },
      { path: "copy.json", text },
    ]);
    expect(twice.sessions).toHaveLength(1);
    expect(twice.problems).toContainEqual({
      file: "s.json",
      line: 0,
      message: "same content as copy.json; imported once",
    });
  });

  test("a session that grew keeps the seq and ids of its earlier snapshots", () => {
    const first = importSessionFiles([
      { path: "s.json", text: exportText(SESSION_INFO, messages.slice(0, 2)) },
    ]);
    const later = importSessionFiles([
      {
        path: "s.json",
        text: exportText({ ...SESSION_INFO, time: { created: 1, updated: 2 } }, messages),
      },
    ]);
    const firstIds = first.sessions[0]?.frames.map((f) => f.id) ?? [];
    expect(firstIds).toHaveLength(2);
    expect(later.sessions[0]?.frames.map((f) => f.id).slice(0, 2)).toEqual(firstIds);
  });

  test("progress text before the document, broken documents, and other JSON", () => {
    const withStderr = `Exporting session: ses_test1\n${text}`;
    const parsed = parseOpencodeExport("s.json", withStderr);
    expect(parsed.problems[0]).toEqual({
      file: "s.json",
      line: 1,
      message: 'not part of a JSON document: "Exporting session: ses_test1"; skipped',
    });
    expect(parsed.sessions[0]?.snapshots).toHaveLength(5);
    expect(detectSessionFormat(withStderr)).toBe("opencode-export");

    const cut = text.slice(0, Math.floor(text.length / 2));
    expect(detectSessionFormat(cut)).toBeNull();
    expect(parseOpencodeExport("cut.json", cut)).toEqual({
      sessions: [],
      problems: [
        {
          file: "cut.json",
          line: 1,
          message: "JSON document is not closed (file cut off?); skipped",
        },
      ],
    });
    const second = parseOpencodeExport("two.json", `${text}{"info": {"id": 3}, "messages": []}\n`);
    expect(second.sessions).toHaveLength(1);
    expect(second.problems).toHaveLength(4); // the three bad parts, then the second document
    expect(second.problems.at(-1)).toEqual({
      file: "two.json",
      line: text.split("\n").length,
      message: "not an opencode export document (expected {info: {id, …}, messages: […]}); skipped",
    });
  });

  test("long session ids are hashed into the key; titles are trimmed and cut to 500 chars", () => {
    expect(sessionKeyFor("opencode", "ses_x")).toBe("opencode:ses_x");
    expect(sessionKeyFor("opencode", "x".repeat(300))).toMatch(/^opencode:sha256-[0-9a-f]{32}$/);
    const long = importSessionFiles([
      {
        path: "s.json",
        text: exportText(
          { ...SESSION_INFO, id: "s".repeat(300), title: `  ${"t".repeat(600)} ` },
          messages.slice(0, 2),
        ),
      },
    ]);
    const session = only(long.sessions);
    expect(session.title).toBe("t".repeat(500));
    expectValidTodoFrames(session.frames);
  });
});

describe("readTodoList", () => {
  test("old and new item shapes; numeric ids become strings; other optional types and unknown keys are dropped", () => {
    expect(
      readTodoList([
        { id: "1", content: "a", status: "pending", priority: "high" },
        { content: "b", status: "in_progress", activeForm: "Doing b" },
        { id: 3, content: "", status: "blocked", priority: null, extra: true },
      ]),
    ).toEqual({
      ok: true,
      items: [
        { content: "a", status: "pending", id: "1", priority: "high" },
        { content: "b", status: "in_progress", activeForm: "Doing b" },
        { content: "", status: "blocked", id: "3" },
      ],
    });
  });

  test("defects", () => {
    expect(readTodoList(null)).toEqual({ ok: false, message: "todos is not an array (got null)" });
    expect(readTodoList(["x"])).toEqual({
      ok: false,
      message: "todos[0] is not an object (got a string)",
    });
    expect(readTodoList([{ status: "pending" }])).toEqual({
      ok: false,
      message: "todos[0] has no 'content' string",
    });
    expect(readTodoList([{ content: "a", status: "" }])).toEqual({
      ok: false,
      message: "todos[0] has no 'status' string",
    });
    expect(readTodoList([{ content: "a", status: "x".repeat(51) }])).toEqual({
      ok: false,
      message: "todos[0].status is 51 chars (at most 50)",
    });
    expect(readTodoList(new Array(1001).fill({ content: "a", status: "pending" }))).toEqual({
      ok: false,
      message: "1001 todos (at most 1000)",
    });
  });
});

describe("detection among all formats", () => {
  test("session files are sessions; benchmark results and training logs are not", () => {
    expect(
      detectSessionFormat(
        fixture("claude-code-transcript", "claude-code-log_todowrite_examples_v1.0.24.jsonl").text,
      ),
    ).toBe("claude-code-transcript");
    for (const folder of ["sglang-bench-serving", "vllm-bench-serve"]) {
      for (const file of fixtureFiles(folder))
        expect(detectSessionFormat(file.text), file.path).toBeNull();
    }
    for (const name of fs
      .readdirSync(path.join(fixturesDir, "specforge-bench-eagle3"))
      .filter((f) => f.endsWith(".json"))) {
      expect(
        detectSessionFormat(
          fs.readFileSync(path.join(fixturesDir, "specforge-bench-eagle3", name), "utf8"),
        ),
      ).toBeNull();
    }
    expect(detectSessionFormat('{"global_step": 10, "log_history": []}')).toBeNull();
    expect(
      detectSessionFormat('{"current_steps": 10, "total_steps": 20, "loss": 1.5}\n'),
    ).toBeNull();
    expect(detectSessionFormat("")).toBeNull();
    expect(detectSessionFormat("hello")).toBeNull();
    // detectImportFormat keeps answering for runs only.
    expect(detectImportFormat(head.text)).toBeNull();
  });

  test("importFiles sends sessions to the session importer; runs are unchanged", () => {
    const llama = fixture(
      "sglang-bench-serving",
      "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
    );
    const transcript = fixture(
      "claude-code-transcript",
      "claude-code-log_todowrite_examples_v1.0.24.jsonl",
    );
    const session = { path: "s.json", text: realPartExport() };
    const mixed = importFiles([session, llama, transcript], { host: "kpro5", tags: ["t"] });
    expect(mixed.problems).toEqual([]);
    expect(mixed.benchmarkRuns).toHaveLength(1);
    expect(mixed.trainingRuns).toEqual([]);
    expect(mixed.sessions.map((s) => [s.format, s.sessionKey, s.snapshotCount])).toEqual([
      ["claude-code-transcript", "claude-code:todowrite_session", 3],
      ["opencode-export", "opencode:ses_f77ccee9cffeY5ZmCgqVGBfRKu", 1],
    ]);
    for (const s of mixed.sessions) {
      expectValidTodoFrames(s.frames);
      for (const f of s.frames) expect(f.host).toBe("kpro5");
    }
    expect(stringifyJson(mixed.sessions)).toBe(
      stringifyJson(importSessionFiles([session, transcript], { host: "kpro5" }).sessions),
    );
    expect(() => importFiles([{ path: "notes.txt", text: "hello" }])).toThrow(
      /nor an agent session \(opencode export JSON, Claude Code transcript JSONL\)/,
    );
    expect(() => importSessionFiles([llama])).toThrow(UnknownFormatError);
    expect(() => importSessionFiles([llama])).toThrow(
      /not a recognised agent session \(expected an `opencode export` JSON or a Claude Code transcript JSONL\)/,
    );
  });
});
