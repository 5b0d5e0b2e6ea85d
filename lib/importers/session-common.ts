import type { SessionTodosFrame, TodoItem } from "../protocol/frames";
import { isPlainObject, sha256Hex, type ImportProblem } from "./source-text";

/**
 * What the agent-session importers share (opencode-export.ts, claude-code-transcript.ts):
 * snapshot types, the session key, the title and todo-list readers.
 */

/** Agent-session formats the importers understand. */
export const SESSION_FORMATS = ["opencode-export", "claude-code-transcript"] as const;
/** `"opencode-export"` (`opencode export` JSON) or `"claude-code-transcript"` (Claude Code `~/.claude/projects/…/<session>.jsonl`). */
export type SessionFormat = (typeof SESSION_FORMATS)[number];

/** One todo-list snapshot read from a file: `seq` its position in the source, `ts` epoch ms, `line` where it sits (1-based). */
export interface ParsedTodoSnapshot {
  seq: number;
  ts: number;
  line: number;
  items: TodoItem[];
}

/**
 * One agent session read from a file: `sessionKey` (`<source>:<tool's session id>`), the frame's
 * `source`, an optional `title` (≤ 500 chars) and its snapshots in source order.
 */
export interface ParsedSession {
  sessionKey: string;
  source: SessionTodosFrame["source"];
  title?: string;
  snapshots: ParsedTodoSnapshot[];
}

/** What a session module reads from one file: its sessions (with ≥ 1 snapshot) and the problems skipped over. */
export interface ParsedSessionFile {
  sessions: ParsedSession[];
  problems: ImportProblem[];
}

/**
 * One agent-session format. `recognises(text)` tells by key presence whether a file's content is
 * this format (never throws); `parse(path, text)` reads it, every defect a problem with its line.
 */
export interface SessionFormatModule {
  format: SessionFormat;
  /** Human name of the writer, for messages. */
  tool: string;
  recognises(text: string): boolean;
  parse(path: string, text: string): ParsedSessionFile;
}

/** Longest session key made from a tool's id; longer ids are hashed, so frame ids stay ≤ 200 chars. */
const MAX_SESSION_KEY_CHARS = 160;
/** Longest title the protocol accepts. */
export const MAX_SESSION_TITLE_CHARS = 500;
const MAX_TODO_TEXT_CHARS = 20_000;
const MAX_TODO_ITEMS = 1000;
const MAX_TODO_ID_CHARS = 200;
const MAX_TODO_STATUS_CHARS = 50;

/**
 * Session key for a tool's session id: `<source>:<id>` (e.g. `opencode:ses_f785…`); when that
 * would pass 160 chars, `<source>:sha256-<32 hex of the id>`. Deterministic: re-imports hit the
 * same session.
 */
export function sessionKeyFor(source: SessionTodosFrame["source"], sessionId: string): string {
  const key = `${source}:${sessionId}`;
  return key.length <= MAX_SESSION_KEY_CHARS
    ? key
    : `${source}:sha256-${sha256Hex(sessionId).slice(0, 32)}`;
}

/** A title as the protocol takes it: trimmed, whitespace runs collapsed, cut to 500 chars; undefined when empty or not a string. */
export function cleanTitle(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const t = value.trim().replace(/\s+/g, " ");
  return t === "" ? undefined : t.slice(0, MAX_SESSION_TITLE_CHARS);
}

function describeType(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Reads a todo list as a `todowrite`/`TodoWrite` call wrote it: an array of
 * `{content, status, id?, priority?, activeForm?}`. `content` (may be empty) and `status`
 * (non-empty) must be strings; statuses outside pending/in_progress/completed/cancelled and
 * truncated content are kept as written. A numeric `id` becomes its decimal string; optional fields
 * of other types, and unknown keys, are left out.
 * @returns the items, or the first defect (the whole list is then unusable).
 */
export function readTodoList(
  value: unknown,
): { ok: true; items: TodoItem[] } | { ok: false; message: string } {
  if (value === undefined) return { ok: false, message: "no 'todos' list" };
  if (!Array.isArray(value))
    return { ok: false, message: `todos is not an array (got ${describeType(value)})` };
  if (value.length > MAX_TODO_ITEMS)
    return { ok: false, message: `${value.length} todos (at most ${MAX_TODO_ITEMS})` };
  const items: TodoItem[] = [];
  for (let i = 0; i < value.length; i++) {
    const raw: unknown = value[i];
    const at = `todos[${i}]`;
    if (!isPlainObject(raw))
      return { ok: false, message: `${at} is not an object (got ${describeType(raw)})` };
    if (typeof raw.content !== "string")
      return { ok: false, message: `${at} has no 'content' string` };
    if (typeof raw.status !== "string" || raw.status === "")
      return { ok: false, message: `${at} has no 'status' string` };
    if (raw.content.length > MAX_TODO_TEXT_CHARS)
      return {
        ok: false,
        message: `${at}.content is ${raw.content.length} chars (at most ${MAX_TODO_TEXT_CHARS})`,
      };
    if (raw.status.length > MAX_TODO_STATUS_CHARS)
      return {
        ok: false,
        message: `${at}.status is ${raw.status.length} chars (at most ${MAX_TODO_STATUS_CHARS})`,
      };
    const item: TodoItem = { content: raw.content, status: raw.status };
    const id = typeof raw.id === "number" && Number.isFinite(raw.id) ? String(raw.id) : raw.id;
    if (typeof id === "string") {
      if (id.length > MAX_TODO_ID_CHARS)
        return {
          ok: false,
          message: `${at}.id is ${id.length} chars (at most ${MAX_TODO_ID_CHARS})`,
        };
      item.id = id;
    }
    if (typeof raw.priority === "string") {
      if (raw.priority.length > MAX_TODO_STATUS_CHARS)
        return {
          ok: false,
          message: `${at}.priority is ${raw.priority.length} chars (at most ${MAX_TODO_STATUS_CHARS})`,
        };
      item.priority = raw.priority;
    }
    if (typeof raw.activeForm === "string") {
      if (raw.activeForm.length > MAX_TODO_TEXT_CHARS)
        return {
          ok: false,
          message: `${at}.activeForm is ${raw.activeForm.length} chars (at most ${MAX_TODO_TEXT_CHARS})`,
        };
      item.activeForm = raw.activeForm;
    }
    items.push(item);
  }
  return { ok: true, items };
}

/** `value` when it is a non-negative safe integer (epoch ms), else null. */
export function epochMsOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
