import { sha256Hex, type ImportProblem, type JsonObject } from "./source-text";
import { parseNumberLike } from "./source-values";
import type { TrainingMetric } from "./training-metric";
import type { RepeatedStepsSummary } from "./training-repeats";

/**
 * Shared pieces of the training-log importers (Hugging Face `trainer_state.json`, LLaMA-Factory
 * `trainer_log.jsonl`, CSV metric tables): the parsed-log shape every format module returns, and
 * value coercion with the writers' quirks (numbers as strings, null losses, Python
 * `str(timedelta)` durations). Run assembly is in training-run.ts. Pure functions: no I/O besides
 * hashing.
 */

/** Training log formats the importers understand (one module each). */
export const TRAINING_FORMATS = [
  "hf-trainer-state",
  "llamafactory-trainer-log",
  "metrics-csv",
] as const;
/**
 * `"hf-trainer-state"` (Transformers `Trainer` trainer_state.json), `"llamafactory-trainer-log"`
 * (LLaMA-Factory trainer_log.jsonl) or `"metrics-csv"` (CSV tables with a `step` column).
 */
export type TrainingFormat = (typeof TRAINING_FORMATS)[number];

export type { TrainingMetric } from "./training-metric";

/** One training log file parsed by its format module. */
export interface ParsedTrainingLog {
  path: string;
  /** SHA-256 (hex) of the file text. */
  contentHash: string;
  format: TrainingFormat;
  /** Text naming the training run (format + the log's stable beginning); hashed into the run key. */
  identity: string;
  /** Metric values in source order; for one (key, step) the later one wins. */
  metrics: TrainingMetric[];
  /** Highest global step the log reached, or null when it holds none. */
  lastStep: number | null;
  /** Planned steps (`max_steps` / `total_steps`), or null when unknown (0 or missing). */
  totalSteps: number | null;
  /** True when the log shows that training finished (it reached its planned steps). */
  finished: boolean;
  /** Steps this file logged more than once (see training-repeats.ts). */
  repeatedSteps: RepeatedStepsSummary;
  /** Wall-clock time of the first / last logged record (epoch ms), when the log records one; else null. */
  startedAtMs: number | null;
  endedAtMs: number | null;
  /** Run config facts (tool key names), nulls left out; must not change while the run grows. */
  config: JsonObject;
}

/**
 * One training log format. `recognises(value)` says whether a parsed JSON value (one line, or the
 * whole file as one document) is this format's record or document, by key presence.
 * `parse(path, text)` reads a whole file of this format; bad records become problems.
 */
export interface TrainingFormatModule {
  format: TrainingFormat;
  /** Human name of the writer, for messages. */
  tool: string;
  recognises(value: unknown): boolean;
  /** For formats that are not JSON (CSV): whether a whole file text is this format. Checked before `recognises`. */
  recognisesText?(text: string): boolean;
  /** @throws TrainingImportError naming the file when the text is not this format at all. */
  parse(path: string, text: string): { parsed: ParsedTrainingLog; problems: ImportProblem[] };
}

/** A training log file or option that cannot be imported at all; `file` is null for option errors. */
export class TrainingImportError extends Error {
  readonly file: string | null;
  constructor(file: string | null, message: string) {
    super(message);
    this.name = "TrainingImportError";
    this.file = file;
  }
}

/** Outcome of reading one metric value: a number, nothing to store (null, bool, nested), or a string that is no number. */
export type MetricValue =
  { kind: "value"; value: number } | { kind: "absent" } | { kind: "invalid"; message: string };

/**
 * Reads one logged value as a metric. Numbers (NaN/±Infinity included) and numeric strings are
 * values; null (a loss not logged at this step), booleans, objects and arrays are "absent" (skipped
 * without a problem: never stored as 0); any other string is "invalid".
 */
export function readMetricValue(value: unknown): MetricValue {
  if (
    value === null ||
    value === undefined ||
    typeof value === "boolean" ||
    typeof value === "object"
  )
    return { kind: "absent" };
  const n = parseNumberLike(value);
  if (n !== null) return { kind: "value", value: n };
  if (typeof value === "string" && value.trim() === "") return { kind: "absent" };
  return {
    kind: "invalid",
    message: `not a number: ${JSON.stringify(String(value).slice(0, 60))}`,
  };
}

/**
 * A global step from a JSON number or a decimal string (`10`, `"10"`, `10.0`): a non-negative safe
 * integer, else null.
 */
export function parseStepValue(value: unknown): number | null {
  const n =
    typeof value === "string" ? (/^\s*\d+(?:\.0*)?\s*$/.test(value) ? Number(value) : null) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

const TIMEDELTA = /^(?:(-?\d+) days?, )?(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)$/;

/**
 * Seconds in a Python `str(datetime.timedelta)` text: `"0:01:02"` → 62, `"4 days, 5:06:09"` →
 * 363969, `"1 day, 0:00:01.5"` → 86401.5, `"-1 day, 23:59:59"` → -1. A JSON number is taken as
 * seconds already. Returns null for anything else.
 */
export function parseDurationS(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const m = TIMEDELTA.exec(value.trim());
  if (!m) return null;
  const days = m[1] === undefined ? 0 : Number(m[1]);
  return days * 86_400 + Number(m[2]) * 3_600 + Number(m[3]) * 60 + Number(m[4]);
}

/** Longest metric key the protocol accepts. */
const MAX_METRIC_KEY_CHARS = 200;

/**
 * Appends the metric values of one log record (`row`) at `step` to `out`, keys in source order,
 * skipping keys in `skip`. Absent values are left out; a non-numeric string or an over-long key is
 * reported as a problem at `line` and left out.
 */
export function collectMetrics(
  row: JsonObject,
  step: number,
  skip: ReadonlySet<string>,
  where: { file: string; line: number },
  out: TrainingMetric[],
  problems: ImportProblem[],
): void {
  for (const [key, raw] of Object.entries(row)) {
    if (skip.has(key)) continue;
    const v = readMetricValue(raw);
    if (v.kind === "absent") continue;
    if (v.kind === "invalid") {
      problems.push({
        file: where.file,
        line: where.line,
        message: `'${key.slice(0, 60)}' at step ${step}: ${v.message}; skipped`,
      });
      continue;
    }
    if (key.length === 0 || key.length > MAX_METRIC_KEY_CHARS) {
      problems.push({
        file: where.file,
        line: where.line,
        message: `metric key of ${key.length} chars (1..${MAX_METRIC_KEY_CHARS} allowed); skipped`,
      });
      continue;
    }
    out.push({ key, step, value: v.value });
  }
}

/** A file's content hash as {@link ParsedTrainingLog.contentHash} wants it. */
export function contentHashOf(text: string): string {
  return sha256Hex(text);
}
