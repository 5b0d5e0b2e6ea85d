import {
  cleanTitle,
  epochMsOrNull,
  readTodoList,
  sessionKeyFor,
  type ParsedSession,
  type ParsedSessionFile,
  type ParsedTodoSnapshot,
  type SessionFormatModule,
} from "./session-common";
import { isPlainObject, type ImportProblem, type JsonObject } from "./source-text";

// The readers opencode-export.test.ts imports from here (they moved to session-common.ts).
export { readTodoList, sessionKeyFor };

/**
 * opencode session exports → agent-session todo snapshots (`session.todos` frames are built in
 * session-import.ts). Format: the JSON that `opencode export <sessionID>` prints (opencode 1.18.30;
 * writer anomalyco/opencode packages/opencode/src/cli/cmd/export.ts at cfa809bf, types from npm
 * @opencode-ai/sdk 1.19.3): one pretty-printed `{ info: Session, messages: [{ info, parts }] }`
 * document. Several exports appended to one file (`opencode export a >> f; opencode export b >> f`)
 * are read one after another. Pure parsing: no I/O besides hashing. What both session importers
 * share (snapshot types, the session key, the todo-list reader) is in session-common.ts.
 */

// ─── Shared with claude-code-transcript.ts ───────────────────────────────────────────────────────

/** One top-level JSON value of a file: where it starts (1-based line, char offset) and its text. */
interface JsonDocument {
  line: number;
  start: number;
  text: string;
}

/**
 * Splits a file into its top-level JSON objects/arrays (a string-aware bracket scan), so appended
 * exports can be read one by one. Text outside any document (e.g. opencode's "Exporting session:"
 * progress line when stderr was redirected too) is reported once per line; an unclosed document
 * (a cut-off file) is a problem at its first line.
 */
function splitJsonDocuments(
  file: string,
  text: string,
  limits: { maxDocs?: number; maxJunkLines?: number } = {},
): { docs: JsonDocument[]; problems: ImportProblem[] } {
  const maxDocs = limits.maxDocs ?? Number.POSITIVE_INFINITY;
  const maxJunkLines = limits.maxJunkLines ?? Number.POSITIVE_INFINITY;
  const docs: JsonDocument[] = [];
  const problems: ImportProblem[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const n = text.length;
  while (i < n && docs.length < maxDocs && problems.length < maxJunkLines) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      line++;
      i++;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d) {
      i++;
      continue;
    }
    if (c !== 0x7b /* { */ && c !== 0x5b /* [ */) {
      let end = text.indexOf("\n", i);
      if (end === -1) end = n;
      const junk = text.slice(i, end).trim();
      problems.push({
        file,
        line,
        message: `not part of a JSON document: ${JSON.stringify(junk.slice(0, 80))}; skipped`,
      });
      i = end;
      continue;
    }
    const start = i;
    const startLine = line;
    let depth = 0;
    let inString = false;
    let closed = false;
    for (; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x0a) line++;
      if (inString) {
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) inString = false;
        continue;
      }
      if (d === 0x22) inString = true;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) {
          i++;
          closed = true;
          break;
        }
      }
    }
    if (!closed) {
      problems.push({
        file,
        line: startLine,
        message: "JSON document is not closed (file cut off?); skipped",
      });
      break;
    }
    docs.push({ line: startLine, start, text: text.slice(start, i) });
  }
  return { docs, problems };
}

/** True for an `opencode export` document: `info` with a string `id`, and a `messages` array. */
function isExportDocument(
  value: unknown,
): value is JsonObject & { info: JsonObject; messages: unknown[] } {
  return (
    isPlainObject(value) &&
    isPlainObject(value.info) &&
    typeof value.info.id === "string" &&
    value.info.id !== "" &&
    Array.isArray(value.messages)
  );
}

/** Line numbers of a document's text: finds values in source order and maps offsets to lines. */
class LineFinder {
  private readonly newlines: number[] = [];
  private from = 0;
  constructor(private readonly doc: JsonDocument) {
    for (let k = doc.text.indexOf("\n"); k !== -1; k = doc.text.indexOf("\n", k + 1))
      this.newlines.push(k);
  }

  /** Line of the next occurrence of the JSON string `value` after the last one found, else null. */
  lineOf(value: string): number | null {
    const at = this.doc.text.indexOf(JSON.stringify(value), this.from);
    if (at === -1) return null;
    this.from = at + 1;
    let lo = 0;
    let hi = this.newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.newlines[mid] as number) < at) lo = mid + 1;
      else hi = mid;
    }
    return this.doc.line + lo;
  }
}

/** The time of a `todowrite` call (epoch ms): `state.time.start`, else `state.time.end`, else its message's `time.created`. */
function partTimeMs(state: JsonObject, message: JsonObject): number | null {
  const time = isPlainObject(state.time) ? state.time : {};
  const created =
    isPlainObject(message.info) && isPlainObject(message.info.time)
      ? message.info.time.created
      : undefined;
  return epochMsOrNull(time.start) ?? epochMsOrNull(time.end) ?? epochMsOrNull(created);
}

/**
 * Reads the sessions of an `opencode export` file. One session per export document (key
 * `opencode:<info.id>`, title `info.title`); one snapshot per `todowrite` tool part, in the order
 * the export lists messages and parts:
 * - `seq`: 1-based position among the session's `todowrite` parts (skipped ones keep their number,
 *   so a re-export of a longer session leaves earlier snapshots' seq unchanged);
 * - `ts`: `state.time.start` (when the call ran), else `state.time.end`, else the message's
 *   `time.created`;
 * - items: `state.input.todos` (what the model wrote; `metadata.todos` and `output` repeat it, and
 *   `input` survives compaction), else `state.metadata.todos`.
 * Parts in state `pending` (input still streaming) or `error` (the call failed, so the list did
 * not change) are skipped without a problem. A part whose todos are unusable, or without any time,
 * is a problem at the line of its `callID` and skipped alone. Sessions without a snapshot are left out.
 */
export function parseOpencodeExport(path: string, text: string): ParsedSessionFile {
  const { docs, problems } = splitJsonDocuments(path, text);
  const sessions: ParsedSession[] = [];
  for (const doc of docs) {
    let value: unknown;
    try {
      value = JSON.parse(doc.text);
    } catch (err) {
      problems.push({
        file: path,
        line: doc.line,
        message: `not valid JSON: ${(err as Error).message.slice(0, 200)}; skipped`,
      });
      continue;
    }
    if (!isExportDocument(value)) {
      problems.push({
        file: path,
        line: doc.line,
        message:
          "not an opencode export document (expected {info: {id, …}, messages: […]}); skipped",
      });
      continue;
    }
    const lines = new LineFinder(doc);
    const sessionId = value.info.id as string;
    const snapshots: ParsedTodoSnapshot[] = [];
    let seq = 0;
    for (const message of value.messages) {
      if (!isPlainObject(message) || !Array.isArray(message.parts)) continue;
      for (const part of message.parts) {
        if (!isPlainObject(part) || part.type !== "tool" || part.tool !== "todowrite") continue;
        seq++;
        const ref =
          typeof part.callID === "string"
            ? part.callID
            : typeof part.id === "string"
              ? part.id
              : null;
        const line = (ref !== null ? lines.lineOf(ref) : null) ?? doc.line;
        const label = `todowrite ${ref ?? `#${seq}`}`;
        const state = part.state;
        if (!isPlainObject(state)) {
          problems.push({ file: path, line, message: `${label}: no 'state' object; skipped` });
          continue;
        }
        if (state.status === "pending" || state.status === "error") continue;
        const input = isPlainObject(state.input) ? state.input : {};
        const metadata = isPlainObject(state.metadata) ? state.metadata : {};
        const todos = input.todos !== undefined ? input.todos : metadata.todos;
        const list = readTodoList(todos);
        if (!list.ok) {
          problems.push({
            file: path,
            line,
            message: `${label}: ${list.message}; snapshot skipped`,
          });
          continue;
        }
        const ts = partTimeMs(state, message);
        if (ts === null) {
          problems.push({
            file: path,
            line,
            message: `${label}: no time (state.time.start/end or message time.created); snapshot skipped`,
          });
          continue;
        }
        snapshots.push({ seq, ts, line, items: list.items });
      }
    }
    if (snapshots.length === 0) continue;
    const title = cleanTitle(value.info.title);
    sessions.push({
      sessionKey: sessionKeyFor("opencode", sessionId),
      source: "opencode",
      ...(title !== undefined ? { title } : {}),
      snapshots,
    });
  }
  return { sessions, problems };
}

/** Lines of other text {@link recognisesOpencodeExport} skips before giving up. */
const DETECT_MAX_JUNK_LINES = 5;

/**
 * True when the first JSON document of `text` is an `opencode export` (`info.id` + `messages`);
 * text before it (a progress line) is allowed. Never throws.
 */
export function recognisesOpencodeExport(text: string): boolean {
  // Cheap native scans first: a big benchmark or training file is not bracket-scanned and parsed.
  if (!text.includes('"info"') || !text.includes('"messages"')) return false;
  const { docs } = splitJsonDocuments("", text, {
    maxDocs: 1,
    maxJunkLines: DETECT_MAX_JUNK_LINES,
  });
  const first = docs[0];
  if (!first) return false;
  try {
    return isExportDocument(JSON.parse(first.text));
  } catch {
    return false;
  }
}

/** The `opencode export` module for session-import.ts. */
export const opencodeExport: SessionFormatModule = {
  format: "opencode-export",
  tool: "opencode export",
  recognises: recognisesOpencodeExport,
  parse: parseOpencodeExport,
};
