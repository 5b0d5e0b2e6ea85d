import { createHash } from "node:crypto";

import { parseLenientJson } from "../protocol/json";

/**
 * Reading an importer's source files, shared by every importer family (benchmark, training, eval,
 * session): physical lines, JSON records (one object per line or one whole document), top-level
 * array element positions, file names and hashes. Pure functions: no I/O besides hashing.
 */

/**
 * A defect in an input file that did not stop the import: `line` is the 1-based line number
 * in `file` (0 when the problem concerns the whole file), `message` says what was wrong.
 */
export interface ImportProblem {
  file: string;
  line: number;
  message: string;
}

/** A parsed JSON object (one source row). */
export type JsonObject = Record<string, unknown>;

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text` (64 chars). */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** One physical line of a file: 1-based `line`, `text` without the line terminator (LF or CRLF). */
export interface SourceLine {
  line: number;
  text: string;
}

/**
 * Iterates the lines of `text` without splitting it into one big array (files with
 * `--output-details` reach tens of MB). Strips a leading BOM and a trailing CR per line.
 * A final empty line after the last newline is yielded like any other (callers skip blanks).
 */
export function* iterateLines(text: string): Generator<SourceLine> {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  for (;;) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 0x0d) stop--;
    yield { line, text: text.slice(start, stop) };
    if (end >= text.length) return;
    start = end + 1;
    line++;
  }
}

/** Number of physical lines {@link iterateLines} yields for `text` (at least 1). */
export function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** A parsed source record: the object `row` read from `text`, which starts on 1-based `line`. */
export interface SourceRecord {
  line: number;
  text: string;
  row: JsonObject;
}

/** True for a non-null, non-array object (what a result row must be). */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NON_BLANK = /\S/;
const MAX_MESSAGE_CHARS = 300;

function clip(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}

function describeJsonType(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

/**
 * Reads JSON records from a results file. Both tools append one `json.dumps(result)` per run, so
 * normally every non-blank line is one object (JSON Lines; a single vLLM `--save-result` object
 * without newline is the one-line case). As a fallback, a file whose first non-blank line is not
 * JSON but whose whole text is one JSON object (pretty-printed) yields that object as one record
 * on the line where it starts. Bare NaN/Infinity are accepted (Python's json writes them).
 * Never throws: lines that are not JSON, or JSON that is not an object, become problems.
 */
export function readJsonRecords(
  file: string,
  text: string,
): { records: SourceRecord[]; problems: ImportProblem[] } {
  const records: SourceRecord[] = [];
  const problems: ImportProblem[] = [];
  let first = true;
  for (const { line, text: lineText } of iterateLines(text)) {
    if (!NON_BLANK.test(lineText)) continue;
    let value: unknown;
    try {
      value = parseLenientJson(lineText);
    } catch (err) {
      if (first) {
        const whole = readWholeDocument(text, line);
        if (whole) return { records: [whole], problems };
      }
      problems.push({ file, line, message: clip(`not valid JSON: ${(err as Error).message}`) });
      first = false;
      continue;
    }
    first = false;
    if (!isPlainObject(value)) {
      problems.push({
        file,
        line,
        message: `expected a JSON object (one benchmark result per line), got ${describeJsonType(value)}`,
      });
      continue;
    }
    records.push({ line, text: lineText, row: value });
  }
  return { records, problems };
}

/** Parses the whole file as one JSON object (pretty-printed results); null when it is not one. */
function readWholeDocument(text: string, firstLine: number): SourceRecord | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!body.trimStart().startsWith("{")) return null;
  try {
    const value = parseLenientJson(body);
    return isPlainObject(value) ? { line: firstLine, text: body, row: value } : null;
  } catch {
    return null;
  }
}

/** Bytes of the UTF-8 encoding of `text`, computed without allocating it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Compares strings with digit runs compared by value ("c8" < "c16"), then by plain code units,
 * so the order is the same on every host (no locale data involved).
 */
export function naturalCompare(a: string, b: string): number {
  const ta = a.match(/\d+|\D+/g) ?? [];
  const tb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    const x = ta[i] as string;
    const y = tb[i] as string;
    if (x === y) continue;
    const xd = /^\d/.test(x);
    const yd = /^\d/.test(y);
    if (xd && yd) {
      const diff = x.replace(/^0+(?=\d)/, "").length - y.replace(/^0+(?=\d)/, "").length;
      if (diff !== 0) return diff;
      const xs = x.replace(/^0+(?=\d)/, "");
      const ys = y.replace(/^0+(?=\d)/, "");
      if (xs !== ys) return xs < ys ? -1 : 1;
      continue;
    }
    return x < y ? -1 : 1;
  }
  if (ta.length !== tb.length) return ta.length - tb.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Last path segment of a POSIX or Windows path ("runs/c8.jsonl" → "c8.jsonl"). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p) return p;
  }
  return path;
}

/** One input file: `path` as the user named it (used in messages and for the default run name), `text` its content. */
export interface ImportFile {
  path: string;
  text: string;
}

/**
 * 1-based line where each element of the top-level array `key` starts in the JSON text `text`
 * (the last occurrence of the key wins, as in `JSON.parse`); with `key` null, of the document
 * itself when it is an array (`[{…}, {…}]`). Scans tokens only (strings skipped with their
 * escapes), so it costs one pass and no second parse. Returns [] when there is no such array.
 */
export function topLevelArrayElementLines(text: string, key: string | null): number[] {
  // Elements of the target array sit one level below it: depth 2 inside an object, 1 at the root.
  const elementDepth = key === null ? 1 : 2;
  let depth = 0;
  let line = 1;
  let lastKey: string | null = null;
  let valueKey: string | null = null;
  let inTarget = false;
  let expectElement = false;
  let lines: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      line++;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d) continue;
    if (inTarget && depth === elementDepth && expectElement && c !== 0x5d /* ] */) {
      lines.push(line);
      expectElement = false;
    }
    if (c === 0x22 /* " */) {
      const start = i + 1;
      for (i = start; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
        else if (d === 0x0a) line++;
      }
      if (depth === 1) lastKey = text.slice(start, i);
      continue;
    }
    if (c === 0x3a /* : */) {
      if (depth === 1) valueKey = lastKey;
      continue;
    }
    if (c === 0x2c /* , */) {
      if (inTarget && depth === elementDepth) expectElement = true;
      else if (depth === 1) valueKey = null;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      if (c === 0x5b && depth === elementDepth && (key === null || valueKey === key)) {
        inTarget = true;
        expectElement = true;
        lines = [];
      }
      continue;
    }
    if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (inTarget && depth === elementDepth) inTarget = false;
      depth--;
    }
  }
  return lines;
}

/**
 * The JSON document of a file, if it is one: the first non-blank line when it parses on its own (a
 * document written without indentation), else the whole text when it starts with "{" and parses.
 * Undefined otherwise (JSON lines whose first line is a row are returned as that row, which no
 * document module recognises). Never throws; a BOM is ignored.
 */
export function readJsonDocument(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const { text: line } of iterateLines(body)) {
    if (!/\S/.test(line)) continue;
    try {
      return parseLenientJson(line);
    } catch {
      break;
    }
  }
  if (!body.trimStart().startsWith("{")) return undefined;
  try {
    return parseLenientJson(body);
  } catch {
    return undefined;
  }
}
