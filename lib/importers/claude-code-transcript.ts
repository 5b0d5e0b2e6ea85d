import type { TodoItem } from "../protocol/frames";
import {
  cleanTitle,
  MAX_SESSION_TITLE_CHARS,
  readTodoList,
  sessionKeyFor,
  type ParsedSession,
  type ParsedSessionFile,
  type ParsedTodoSnapshot,
  type SessionFormatModule,
} from "./session-common";
import { isPlainObject, iterateLines, type ImportProblem, type JsonObject } from "./source-text";

/**
 * Claude Code session transcripts → agent-session todo snapshots (`session.todos` frames are built
 * in session-import.ts). Format: `~/.claude/projects/<encoded cwd>/<sessionId>.jsonl` (and
 * `<sessionId>/subagents/agent-<id>.jsonl`), one JSON object per line, as written by Claude Code
 * 1.0.24 (fixture daaain/claude-code-log test/test_data/todowrite_examples.jsonl at 50f68e72) through
 * 2.x (TodoWriteInput/TodoWriteOutput of npm @anthropic-ai/claude-code 2.1.x sdk-tools.d.ts).
 * Pure parsing: no I/O.
 *
 * A `TodoWrite` call is an assistant line's `tool_use` block (`input.todos`, old items
 * `{id, content, status, priority}`, current `{content, status, activeForm}`); its result is a later
 * user line with the matching `tool_result` block and a top-level `toolUseResult: {oldTodos,
 * newTodos}`. The pair is ONE snapshot.
 */

/** Strict ISO-8601 date-time with a zone, as Claude Code writes `timestamp` ("2025-06-29T12:48:17.113Z"). */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** A line's `timestamp` as epoch ms, or null when missing or not an ISO date-time with a zone. */
export function parseTranscriptTimestamp(value: unknown): number | null {
  if (typeof value !== "string" || !ISO_TIMESTAMP.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : null;
}

/** Longest title taken from a session's first prompt (when it has no /rename, AI or summary title). */
const PROMPT_TITLE_CHARS = 120;

interface TodoCall {
  toolUseId: string;
  line: number;
  ts: number | null;
  sessionKey: string;
  input: unknown;
  failed: boolean;
  result: { newTodos: unknown; line: number; ts: number | null } | null;
}

interface Orphan {
  line: number;
  ts: number | null;
  sessionKey: string;
  newTodos: unknown;
}

interface Titles {
  custom?: string;
  ai?: string;
  summary?: string;
  prompt?: string;
}

/** True for a `toolUseResult` of TodoWrite: `newTodos` present next to `oldTodos` (TodoWriteOutput). */
function isTodoWriteResult(value: unknown): value is JsonObject & { newTodos: unknown } {
  return isPlainObject(value) && "newTodos" in value && "oldTodos" in value;
}

/** The first prompt of a user line as a title: its text (string content or first text block), unless meta or a command wrapper. */
function promptTitle(row: JsonObject): string | undefined {
  if (row.isMeta === true || !isPlainObject(row.message)) return undefined;
  const content = row.message.content;
  let text: unknown = content;
  if (Array.isArray(content)) {
    const block = content.find(
      (b: unknown) => isPlainObject(b) && b.type === "text" && typeof b.text === "string",
    ) as JsonObject | undefined;
    text = block?.text;
  }
  const title = cleanTitle(text);
  // "<command-name>…", "<local-command-stdout>…", "Caveat: …" lines are Claude Code's, not the user's words.
  if (title === undefined || title.startsWith("<") || title.startsWith("Caveat:")) return undefined;
  return title.length > PROMPT_TITLE_CHARS ? `${title.slice(0, PROMPT_TITLE_CHARS - 1)}…` : title;
}

/**
 * Reads the sessions of a Claude Code transcript. Session key `claude-code:<sessionId>`; a
 * subagent's calls (`isSidechain: true` lines, in the main file for old versions or in
 * `subagents/agent-<id>.jsonl`) form their own session `claude-code:<sessionId>/agent-<agentId>`
 * (`/sidechain` without an `agentId`), since each agent keeps its own todo list.
 * - One snapshot per `TodoWrite` call: `seq` = the call's line number (a line holding several
 *   calls keeps the last), `ts` = its `timestamp` (else the result's).
 * - Items: the result's `newTodos` when the call has one (matched by `tool_use_id`; a line's
 *   `toolUseResult` is used only when it carries a single tool_result), else the call's
 *   `input.todos`. Exception: an empty `newTodos` for a non-empty input is the input (Claude Code
 *   clears a list once every item is completed; the completed items are the snapshot).
 * - A call whose `tool_result` has `is_error` (rejected input, interrupted) is skipped without a
 *   problem: the list did not change. A repeated `tool_use` id is read once.
 * - A TodoWrite result whose call is not in the file (`oldTodos`/`newTodos` with an unknown or no
 *   tool_use_id) is a snapshot of its own at its line.
 * - Title: the latest `custom-title` (/rename), else the latest `ai-title`, else the latest
 *   `summary` line whose `leafUuid` is a line of the session, else the first prompt (≤ 120 chars);
 *   a subagent session gets its parent's title + " (subagent <id>)".
 * Lines that are not JSON objects, unusable todo lists and calls without any timestamp are problems
 * (file, line) and skipped alone; unknown line types pass through. Sessions without a snapshot are left out.
 */
export function parseClaudeCodeTranscript(path: string, text: string): ParsedSessionFile {
  const problems: ImportProblem[] = [];
  const calls = new Map<string, TodoCall>();
  const orphans: Orphan[] = [];
  const uuidToSession = new Map<string, string>();
  const titles = new Map<string, Titles>();
  const summaries: Array<{ leafUuid: string; summary: string }> = [];
  const fileLevelTitles: Titles = {};
  const subagents = new Map<string, { parentId: string; agentId: string | null }>();
  const mainSessions = new Map<string, string>();
  let firstSessionId: string | null = null;
  let lastSessionId: string | null = null;

  const titlesOf = (sessionId: string) => {
    let t = titles.get(sessionId);
    if (!t) titles.set(sessionId, (t = {}));
    return t;
  };

  for (const { line, text: lineText } of iterateLines(text)) {
    if (!/\S/.test(lineText)) continue;
    let row: unknown;
    try {
      row = JSON.parse(lineText);
    } catch (err) {
      problems.push({
        file: path,
        line,
        message: `not valid JSON: ${(err as Error).message.slice(0, 200)}; skipped`,
      });
      continue;
    }
    if (!isPlainObject(row)) {
      problems.push({
        file: path,
        line,
        message: "expected a JSON object (one transcript entry per line); skipped",
      });
      continue;
    }
    const ownSessionId =
      typeof row.sessionId === "string" && row.sessionId !== "" ? row.sessionId : null;
    if (ownSessionId !== null) {
      firstSessionId ??= ownSessionId;
      lastSessionId = ownSessionId;
      if (typeof row.uuid === "string") uuidToSession.set(row.uuid, ownSessionId);
    }
    const sessionId = ownSessionId ?? lastSessionId;
    const ts = parseTranscriptTimestamp(row.timestamp);

    switch (row.type) {
      case "summary":
        if (typeof row.leafUuid === "string" && typeof row.summary === "string")
          summaries.push({ leafUuid: row.leafUuid, summary: row.summary });
        continue;
      case "custom-title":
      case "ai-title": {
        const value = cleanTitle(row.type === "custom-title" ? row.customTitle : row.aiTitle);
        if (value === undefined) continue;
        const target = ownSessionId !== null ? titlesOf(ownSessionId) : fileLevelTitles;
        if (row.type === "custom-title") target.custom = value;
        else target.ai = value;
        continue;
      }
    }
    if (sessionId === null) continue;
    let sessionKey = sessionKeyFor("claude-code", sessionId);
    if (row.isSidechain !== true) mainSessions.set(sessionKey, sessionId);
    else {
      const agentId = typeof row.agentId === "string" && row.agentId !== "" ? row.agentId : null;
      sessionKey = sessionKeyFor(
        "claude-code",
        `${sessionId}/${agentId !== null ? `agent-${agentId}` : "sidechain"}`,
      );
      if (!subagents.has(sessionKey)) subagents.set(sessionKey, { parentId: sessionId, agentId });
    }

    const message = isPlainObject(row.message) ? row.message : null;
    const blocks = message && Array.isArray(message.content) ? (message.content as unknown[]) : [];
    if (row.type === "assistant") {
      blocks.forEach((block, k) => {
        if (!isPlainObject(block) || block.type !== "tool_use" || block.name !== "TodoWrite")
          return;
        // A block without an id can match no result: give it one that no tool_use_id can equal.
        const toolUseId =
          typeof block.id === "string" && block.id !== "" ? block.id : `\u0000line-${line}-${k}`;
        if (calls.has(toolUseId)) return;
        const input = isPlainObject(block.input) ? block.input.todos : undefined;
        calls.set(toolUseId, {
          toolUseId,
          line,
          ts,
          sessionKey,
          input,
          failed: false,
          result: null,
        });
      });
      continue;
    }
    if (row.type !== "user") continue;
    if (row.isSidechain !== true) {
      const t = titlesOf(sessionId);
      t.prompt ??= promptTitle(row);
    }
    const results = blocks.filter(
      (b): b is JsonObject => isPlainObject(b) && b.type === "tool_result",
    );
    const todoResults = results.filter(
      (b) => typeof b.tool_use_id === "string" && calls.has(b.tool_use_id),
    );
    for (const block of todoResults) {
      const call = calls.get(block.tool_use_id as string) as TodoCall;
      if (block.is_error === true) call.failed = true;
    }
    if (!isTodoWriteResult(row.toolUseResult)) continue;
    const todoResult = row.toolUseResult;
    if (results.length === 1 && todoResults.length === 1) {
      const call = calls.get(todoResults[0]?.tool_use_id as string) as TodoCall;
      call.result = { newTodos: todoResult.newTodos, line, ts };
    } else if (todoResults.length === 0 && results.length <= 1) {
      orphans.push({ line, ts, sessionKey, newTodos: todoResult.newTodos });
    }
  }

  // Snapshots per session, in line order.
  const bySession = new Map<string, ParsedTodoSnapshot[]>();
  const add = (sessionKey: string, snap: ParsedTodoSnapshot) => {
    const list = bySession.get(sessionKey);
    if (!list) bySession.set(sessionKey, [snap]);
    // Several TodoWrite blocks on one line share its seq: the later one is the list that stood.
    else if (list.at(-1)?.seq === snap.seq) list[list.length - 1] = snap;
    else list.push(snap);
  };
  for (const call of calls.values()) {
    if (call.failed) continue;
    const label = `TodoWrite ${call.toolUseId.startsWith("\u0000") ? "(no tool_use id)" : call.toolUseId}`;
    const items = chooseItems(call);
    if (!items.ok) {
      problems.push({
        file: path,
        line: call.line,
        message: `${label}: ${items.message}; snapshot skipped`,
      });
      continue;
    }
    const ts = call.ts ?? call.result?.ts ?? null;
    if (ts === null) {
      problems.push({
        file: path,
        line: call.line,
        message: `${label}: no ISO 'timestamp' on the call or its result; snapshot skipped`,
      });
      continue;
    }
    add(call.sessionKey, { seq: call.line, ts, line: call.line, items: items.items });
  }
  for (const orphan of orphans) {
    const list = readTodoList(orphan.newTodos);
    if (!list.ok) {
      problems.push({
        file: path,
        line: orphan.line,
        message: `TodoWrite result (call not in this file): newTodos: ${list.message}; snapshot skipped`,
      });
      continue;
    }
    if (orphan.ts === null) {
      problems.push({
        file: path,
        line: orphan.line,
        message: "TodoWrite result (call not in this file): no ISO 'timestamp'; snapshot skipped",
      });
      continue;
    }
    add(orphan.sessionKey, {
      seq: orphan.line,
      ts: orphan.ts,
      line: orphan.line,
      items: list.items,
    });
  }

  // Titles: /rename, AI title, summary of a leaf in the session, first prompt.
  for (const { leafUuid, summary } of summaries) {
    const sessionId = uuidToSession.get(leafUuid);
    const value = cleanTitle(summary);
    if (sessionId !== undefined && value !== undefined) titlesOf(sessionId).summary = value;
  }
  const titleOf = (sessionId: string): string | undefined => {
    const t = titles.get(sessionId) ?? {};
    const fileLevel = sessionId === firstSessionId ? fileLevelTitles : {};
    return t.custom ?? fileLevel.custom ?? t.ai ?? fileLevel.ai ?? t.summary ?? t.prompt;
  };

  const sessions: ParsedSession[] = [];
  for (const [sessionKey, snapshots] of bySession) {
    snapshots.sort((a, b) => a.seq - b.seq);
    const sub = subagents.get(sessionKey);
    let title: string | undefined;
    if (sub) {
      const parent = titleOf(sub.parentId);
      const suffix = ` (subagent${sub.agentId !== null ? ` ${sub.agentId}` : ""})`;
      title =
        parent !== undefined
          ? `${parent.slice(0, MAX_SESSION_TITLE_CHARS - suffix.length)}${suffix}`
          : undefined;
    } else {
      const sessionId = mainSessions.get(sessionKey);
      title = sessionId !== undefined ? titleOf(sessionId) : undefined;
    }
    sessions.push({
      sessionKey,
      source: "claude-code",
      ...(title !== undefined ? { title } : {}),
      snapshots,
    });
  }
  problems.sort((a, b) => a.line - b.line);
  return { sessions, problems };
}

/** The items of a call: newTodos from its result, else its input (see {@link parseClaudeCodeTranscript}). */
function chooseItems(
  call: TodoCall,
): { ok: true; items: TodoItem[] } | { ok: false; message: string } {
  const input = readTodoList(call.input);
  if (call.result === null) return input;
  const result = readTodoList(call.result.newTodos);
  if (!result.ok) return input.ok ? input : { ok: false, message: `newTodos: ${result.message}` };
  if (result.items.length === 0 && input.ok && input.items.length > 0) return input;
  return result;
}

/** How many non-blank lines {@link recognisesClaudeCodeTranscript} looks at. */
const DETECT_MAX_LINES = 20;

/**
 * True when one of the first 20 non-blank lines is a Claude Code transcript entry: a string
 * `type`, `sessionId` and `uuid` (user/assistant/system lines), or a `summary` line with a
 * `leafUuid`. Never throws.
 */
export function recognisesClaudeCodeTranscript(text: string): boolean {
  let seen = 0;
  for (const { text: line } of iterateLines(text)) {
    if (!/\S/.test(line)) continue;
    // Only lines naming a session or a leaf are parsed (benchmark lines can be megabytes long).
    if (!line.includes('"sessionId"') && !line.includes('"leafUuid"')) {
      if (++seen >= DETECT_MAX_LINES) break;
      continue;
    }
    try {
      const row: unknown = JSON.parse(line);
      if (isPlainObject(row) && typeof row.type === "string") {
        if (typeof row.sessionId === "string" && typeof row.uuid === "string") return true;
        if (row.type === "summary" && typeof row.leafUuid === "string") return true;
      }
    } catch {
      // not JSON: keep looking
    }
    if (++seen >= DETECT_MAX_LINES) break;
  }
  return false;
}

/** The Claude Code transcript module for session-import.ts. */
export const claudeCodeTranscript: SessionFormatModule = {
  format: "claude-code-transcript",
  tool: "Claude Code transcript",
  recognises: recognisesClaudeCodeTranscript,
  parse: parseClaudeCodeTranscript,
};
