import { createHash } from "node:crypto";

import type { BenchmarkPointInput } from "../protocol/frames";
import { parseLenientJson, stringifyJson } from "../protocol/json";

/**
 * The shared base of every importer family (benchmark, training, eval, session): source-line
 * reading, JSON documents and top-level array positions, number coercion with the writers'
 * conventions (non-finite numbers and their Python spellings, 0.0 = "not measured", "inf"
 * strings), raw-row trimming and run-config merging. No format module borrows from another
 * family; what two families need lives here. Pure functions: no I/O besides hashing.
 */

/** Benchmark result formats the importers understand (one module each). */
export const BENCHMARK_FORMATS = [
  "sglang-bench-serving",
  "vllm-bench-serve",
  "genai-perf",
  "guidellm",
] as const;
/**
 * `"sglang-bench-serving"` (SGLang `bench_serving --output-file`), `"vllm-bench-serve"` (vLLM
 * `bench serve --save-result`), `"genai-perf"` (NVIDIA GenAI-Perf `profile_export_genai_perf.json`)
 * or `"guidellm"` (GuideLLM `benchmarks.json`).
 */
export type BenchmarkFormat = (typeof BENCHMARK_FORMATS)[number];

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

/** The point fields a format module derives from one row; key, ord and raw are added by the run builder. */
export type PointFields = Omit<BenchmarkPointInput, "key" | "ord" | "raw">;

/**
 * What a format module makes of one source row.
 * - `point`: protocol point fields (latencies ms, throughputs tok/s or req/s, duration s).
 * - `raw`: the row minus per-request arrays and blobs (non-finite numbers kept as JS numbers).
 * - `facts`: run-config facts from this row; the run config merges them over all rows.
 * - `startedAtMs` / `endedAtMs`: epoch ms when the row carries a timestamp (vLLM `date`).
 */
export interface RowMapping {
  point: PointFields;
  raw: JsonObject;
  facts: JsonObject;
  startedAtMs?: number;
  endedAtMs?: number;
}

/**
 * One importer format. `score(row)` says how much a parsed JSON object looks like this format's
 * result row (count of marker keys; 0 = not at all); the highest score with at least
 * {@link MIN_FORMAT_SCORE} wins. `mapRow` turns a row of this format into a {@link RowMapping}
 * and never throws on odd values (they become null and stay visible in `raw`).
 */
export interface BenchmarkFormatModule {
  format: BenchmarkFormat;
  /** Human name of the writing tool, used in messages ("SGLang bench_serving"). */
  tool: string;
  score(row: JsonObject): number;
  mapRow(row: JsonObject): RowMapping;
}

/** Fewest marker keys a row needs before it is attributed to a format. */
export const MIN_FORMAT_SCORE = 2;

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

/** `value` when it is a JS number (NaN and ±Infinity included), else null. */
export function numberOrNull(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

/** `value` when it is a finite number, else null. */
export function finiteOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * A TTFT/TPOT/ITL statistic in ms. Both writers compute `np.mean(x or 0)`, so a metric that was
 * not measured (non-streaming backend, or every output one token long for TPOT) is written as
 * exactly 0.0: that becomes null. NaN/±Infinity are kept.
 */
export function measuredMsOrNull(value: unknown): number | null {
  return typeof value === "number" && value !== 0 ? value : null;
}

/** `value` when it is a non-negative safe integer (what the protocol's counts and lengths accept), else null. */
export function nonNegIntOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** `value` when it is a non-empty string, else null. */
export function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** A dataset name for a point: non-empty string cut to the protocol's 200 chars, else null. */
export function datasetOrNull(value: unknown): string | null {
  const s = stringOrNull(value);
  return s === null ? null : s.slice(0, 200);
}

/**
 * Sets `obj[key] = value` as an own enumerable property, also for the key "__proto__" (which a
 * plain assignment would treat as the prototype). Keys here come from input files.
 */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else obj[key] = value;
}

/** Offered request rate as the protocol wants it (req/s), see {@link parseRequestRate}. */
export interface RequestRate {
  requestRate: number | null;
  requestRateUnbounded?: true;
}

const UNBOUNDED_RATE = /^\+?(inf|infinity)$/i;

/**
 * Maps a writer's `request_rate` (req/s) to the protocol fields.
 * - finite number, or a numeric string → `{ requestRate: n }`
 * - `Infinity` (SGLang writes the bare token) or the string "inf" (vLLM) → `{ requestRate: null, requestRateUnbounded: true }`
 * - "trace" (SGLang mooncake trace replay), NaN, null, anything else → `{ requestRate: null }`; the raw row keeps the value.
 */
export function parseRequestRate(value: unknown): RequestRate {
  if (typeof value === "number") {
    if (value === Number.POSITIVE_INFINITY)
      return { requestRate: null, requestRateUnbounded: true };
    return { requestRate: Number.isFinite(value) && value >= 0 ? value : null };
  }
  if (typeof value === "string") {
    const s = value.trim();
    if (UNBOUNDED_RATE.test(s)) return { requestRate: null, requestRateUnbounded: true };
    const n = coerceNumericString(s);
    if (typeof n === "number" && Number.isFinite(n) && n >= 0) return { requestRate: n };
  }
  return { requestRate: null };
}

/**
 * Mean tokens per completed request, rounded to an integer (the protocol's lengths are integers):
 * `round(total / completed)`; null when either is missing or `completed` is 0.
 */
export function meanLength(total: unknown, completed: number | null): number | null {
  const t = finiteOrNull(total);
  if (t === null || t < 0 || completed === null || completed <= 0) return null;
  return Math.round(t / completed);
}

/** `numerator / denominator` when both are finite and the denominator is positive, else null. */
export function ratioOrNull(numerator: number | null, denominator: number | null): number | null {
  if (
    numerator === null ||
    denominator === null ||
    !Number.isFinite(numerator) ||
    !Number.isFinite(denominator) ||
    denominator <= 0
  )
    return null;
  return numerator / denominator;
}

const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/**
 * Turns a string that spells a plain decimal number ("1", "1000", "0.88", "-2", "1e3") into that
 * number; anything else (including "007", "1.0.0", "", "inf") is returned unchanged.
 * vLLM `--metadata KEY=VALUE` values arrive as strings.
 */
export function coerceNumericString(value: unknown): unknown {
  if (typeof value !== "string" || !NUMERIC.test(value)) return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** Number of failed requests in a per-request `errors` array ("" = success), or null without one. */
export function countFailed(errors: unknown): number | null {
  if (!Array.isArray(errors)) return null;
  let failed = 0;
  for (const e of errors) if (typeof e === "string" ? e.length > 0 : e != null) failed++;
  return failed;
}

/**
 * Top-level keys that hold per-request arrays (one entry per request) in either writer:
 * SGLang `--output-details` (top level, or nested under `details` in the refactored writer) and
 * vLLM `--save-detailed` (plus `latencies`/`queue_times`, which newer vLLM writes even without it).
 */
export const PER_REQUEST_KEYS: ReadonlySet<string> = new Set([
  "input_lens",
  "output_lens",
  "ttfts",
  "itls",
  "tpots",
  "latencies",
  "e2els",
  "start_times",
  "queue_times",
  "generated_texts",
  "errors",
  "details",
]);

/** Arrays longer than this are treated as per-request data and left out of `raw` as well. */
export const MAX_RAW_ARRAY_LENGTH = 256;

/**
 * The row for a point's `raw`: a shallow copy without {@link PER_REQUEST_KEYS} and without any
 * other array longer than {@link MAX_RAW_ARRAY_LENGTH}; keys in `replace` take the given value
 * instead (e.g. `server_info` → a short summary). Key order is kept; values are not copied.
 */
export function trimRawRow(row: JsonObject, replace: JsonObject = {}): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row)) {
    if (Object.hasOwn(replace, key)) {
      setOwn(out, key, replace[key]);
      continue;
    }
    if (PER_REQUEST_KEYS.has(key)) continue;
    if (Array.isArray(value) && value.length > MAX_RAW_ARRAY_LENGTH) continue;
    setOwn(out, key, value);
  }
  return out;
}

/**
 * Engine implied by a benchmark client's `backend` name: sglang* → "sglang", vllm* → "vllm",
 * lmdeploy* → "lmdeploy", trt* → "tensorrt-llm", tgi → "tgi"; null for generic clients such as
 * "openai" / "openai-chat", which say nothing about the server behind them.
 */
export function engineFromBackend(backend: string | null): string | null {
  if (!backend) return null;
  const b = backend.toLowerCase();
  for (const [prefix, engine] of [
    ["sglang", "sglang"],
    ["vllm", "vllm"],
    ["lmdeploy", "lmdeploy"],
    ["trt", "tensorrt-llm"],
    ["tensorrt", "tensorrt-llm"],
    ["tgi", "tgi"],
  ] as const) {
    if (b === prefix || b.startsWith(`${prefix}-`) || b.startsWith(`${prefix}_`)) return engine;
  }
  return null;
}

/**
 * Merges per-row config facts into one run config. For each key (first-seen order) among the rows
 * that have a non-null value: nested plain objects merge recursively; a value shared by all
 * those rows is kept as is; differing values become the array of distinct values in first-seen
 * order (compared by their JSON text). Rows without the key do not count.
 */
export function mergeFacts(rows: readonly JsonObject[]): JsonObject {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const out: JsonObject = {};
  for (const key of keys) {
    const values: unknown[] = [];
    for (const row of rows) {
      const v = Object.hasOwn(row, key) ? row[key] : undefined;
      if (v !== undefined && v !== null) values.push(v);
    }
    if (values.length === 0) continue;
    if (values.every(isPlainObject)) {
      setOwn(out, key, mergeFacts(values));
      continue;
    }
    const distinct = new Map<string, unknown>();
    for (const v of values) {
      const id = stringifyJson(v);
      if (!distinct.has(id)) distinct.set(id, v);
    }
    setOwn(out, key, distinct.size === 1 ? values[0] : [...distinct.values()]);
  }
  return out;
}

/** Copy of `facts` without keys whose value is undefined or null (so merged configs stay small). */
export function compactFacts(facts: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(facts)) if (v !== undefined && v !== null) setOwn(out, k, v);
  return out;
}

const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/;
const SPACED_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/**
 * Parses a writer timestamp without zone, "YYYYmmdd-HHMMSS" (vLLM `date`) or
 * "YYYY-mm-dd HH:MM:SS", as UTC (the writer used the benchmark host's local time, which the file
 * does not record). Returns epoch ms, or null when the text is not such a valid date.
 */
export function parseZonelessDate(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = COMPACT_DATE.exec(value) ?? SPACED_DATE.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    back.getUTCHours() !== h ||
    back.getUTCMinutes() !== mi ||
    back.getUTCSeconds() !== s
  ) {
    return null;
  }
  return ms >= 0 ? ms : null;
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

const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const NON_FINITE = /^([-+]?)(nan|inf|infinity)$/i;

/**
 * A number from a JSON number or a numeric string: `"1234.56"`, `"0.00"`, `" 3e-5 "`, and the
 * spellings Python's `str(float)` and `json.dumps` use for non-finite values (`"nan"`, `"inf"`,
 * `"-inf"`, `"NaN"`, `"Infinity"`). Returns null for anything else.
 */
export function parseNumberLike(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return null;
  const s = value.trim();
  if (DECIMAL.test(s)) return Number(s);
  const m = NON_FINITE.exec(s);
  if (!m) return null;
  if ((m[2] as string).toLowerCase() === "nan") return Number.NaN;
  return m[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
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
