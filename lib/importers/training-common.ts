import { MAX_FRAME_BYTES, PROTOCOL_VERSION, runStartFrame, type ClientFrameInput, type MetricPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { describeIssues } from "../protocol/validate";
import { baseName, naturalCompare, setOwn, sha256Hex, utf8ByteLength, type ImportProblem, type JsonObject } from "./benchmark-common";
import type { RepeatedStepsSummary } from "./training-repeats";

/**
 * Shared pieces of the training-log importers (Hugging Face `trainer_state.json`, LLaMA-Factory
 * `trainer_log.jsonl`): value coercion with the writers' quirks (numbers as strings, null losses,
 * Python `str(timedelta)` durations) and run assembly (run key, metric frames, progress, end).
 * Pure functions: no I/O besides hashing.
 *
 * Identity (see {@link buildTrainingRuns}): a training log GROWS while training runs (LLaMA-Factory
 * appends a line per logging step; the Trainer rewrites `trainer_state.json` in every checkpoint
 * folder with a longer `log_history`). The run key therefore hashes the log's stable beginning
 * (its first record and the hyperparameters that cannot change mid-run), not the whole file, so
 * importing a later snapshot of the same training continues the same run, and importing the same
 * snapshot again is a no-op (identical frame ids, deduplicated by the server).
 */

/** Training log formats the importers understand (one module each). */
export const TRAINING_FORMATS = ["hf-trainer-state", "llamafactory-trainer-log", "metrics-csv"] as const;
/**
 * `"hf-trainer-state"` (Transformers `Trainer` trainer_state.json), `"llamafactory-trainer-log"`
 * (LLaMA-Factory trainer_log.jsonl) or `"metrics-csv"` (CSV tables with a `step` column).
 */
export type TrainingFormat = (typeof TRAINING_FORMATS)[number];

/** One metric value from a log: `key` as the tool spells it, `step` the global step, `value` (NaN/±Infinity kept). */
export interface TrainingMetric {
  key: string;
  step: number;
  value: number;
}

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
export type MetricValue = { kind: "value"; value: number } | { kind: "absent" } | { kind: "invalid"; message: string };

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
 * Reads one logged value as a metric. Numbers (NaN/±Infinity included) and numeric strings are
 * values; null (a loss not logged at this step), booleans, objects and arrays are "absent" (skipped
 * without a problem: never stored as 0); any other string is "invalid".
 */
export function readMetricValue(value: unknown): MetricValue {
  if (value === null || value === undefined || typeof value === "boolean" || typeof value === "object") return { kind: "absent" };
  const n = parseNumberLike(value);
  if (n !== null) return { kind: "value", value: n };
  if (typeof value === "string" && value.trim() === "") return { kind: "absent" };
  return { kind: "invalid", message: `not a number: ${JSON.stringify(String(value).slice(0, 60))}` };
}

/**
 * A global step from a JSON number or a decimal string (`10`, `"10"`, `10.0`): a non-negative safe
 * integer, else null.
 */
export function parseStepValue(value: unknown): number | null {
  const n = typeof value === "string" ? (/^\s*\d+(?:\.0*)?\s*$/.test(value) ? Number(value) : null) : value;
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
      problems.push({ file: where.file, line: where.line, message: `'${key.slice(0, 60)}' at step ${step}: ${v.message}; skipped` });
      continue;
    }
    if (key.length === 0 || key.length > MAX_METRIC_KEY_CHARS) {
      problems.push({ file: where.file, line: where.line, message: `metric key of ${key.length} chars (1..${MAX_METRIC_KEY_CHARS} allowed); skipped` });
      continue;
    }
    out.push({ key, step, value: v.value });
  }
}

/** A file's content hash as {@link ParsedTrainingLog.contentHash} wants it. */
export function contentHashOf(text: string): string {
  return sha256Hex(text);
}

/** Default largest number of points in one `run.metrics` frame (the protocol allows 10000). */
export const DEFAULT_MAX_METRIC_POINTS_PER_FRAME = 2000;
/** Default largest serialised `run.metrics` frame, in bytes: 768 KiB, well under the 1 MiB limit. */
export const DEFAULT_MAX_METRIC_FRAME_BYTES = 768 * 1024;
/** `workerId` of the `run.progress` frames an import sends. */
export const IMPORT_WORKER_ID = "import";

/**
 * Training import options.
 * - `name`: run name (default: the log's folder, skipping a `checkpoint-<N>` folder, else the file
 *   name); at most 300 chars. Given with files of more than one training run, it is an error.
 * - `host`: host the training ran on (`run.start.host`); `tags`: run tags.
 * - `maxPointsPerFrame` (default 2000, at most 10000) and `maxFrameBytes` (default 768 KiB, at
 *   most 1 MiB): limits of each `run.metrics` frame, measured as serialised by `stringifyJson`.
 */
export interface TrainingImportOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxPointsPerFrame?: number;
  maxFrameBytes?: number;
}

/**
 * One imported training run: deterministic `runKey` (`import:<32 hex>`), `name`, source `format`,
 * `files` (oldest snapshot first), `pointCount` (metric points after resolving duplicate steps),
 * `lastStep` / `totalSteps` (progress in steps, null when unknown), `finished` (the log reached its
 * planned steps), `endStatus` (`succeeded` when finished, else `ended`: the log stops at its last
 * step and does not say how training went), `repeatedSteps` (steps the newest file logged more than
 * once; the later values are the ones sent), and `frames` to send in order (`run.start`,
 * `run.metrics`…, `run.progress`, `run.end`); every frame passes `checkFrame`.
 */
export interface ImportedTrainingRun {
  runKey: string;
  name: string;
  format: TrainingFormat;
  files: string[];
  pointCount: number;
  lastStep: number | null;
  totalSteps: number | null;
  finished: boolean;
  endStatus: "succeeded" | "ended";
  repeatedSteps: RepeatedStepsSummary;
  frames: ClientFrameInput[];
}

/** Result of a training import: the runs, and every record-level problem skipped over. */
export interface TrainingImportResult {
  runs: ImportedTrainingRun[];
  problems: ImportProblem[];
}

interface CheckedTrainingOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxPointsPerFrame: number;
  maxFrameBytes: number;
}

/** Validates import options. @throws TrainingImportError (file null) naming the bad option. */
export function checkTrainingOptions(opts: TrainingImportOptions): CheckedTrainingOptions {
  const shape = runStartFrame.shape;
  const name = opts.name?.trim() ? opts.name.trim().slice(0, 300) : undefined;
  if (opts.host !== undefined) {
    const host = shape.host.safeParse(opts.host);
    if (!host.success) throw new TrainingImportError(null, `invalid host ${JSON.stringify(opts.host)}: ${describeIssues(host.error)}`);
  }
  if (opts.tags !== undefined) {
    const tags = shape.tags.safeParse(opts.tags);
    if (!tags.success) throw new TrainingImportError(null, `invalid tags: ${describeIssues(tags.error)}`);
  }
  const maxPointsPerFrame = opts.maxPointsPerFrame ?? DEFAULT_MAX_METRIC_POINTS_PER_FRAME;
  if (!Number.isInteger(maxPointsPerFrame) || maxPointsPerFrame < 1 || maxPointsPerFrame > 10_000) {
    throw new TrainingImportError(null, `maxPointsPerFrame must be an integer in 1..10000, got ${maxPointsPerFrame}`);
  }
  const maxFrameBytes = opts.maxFrameBytes ?? DEFAULT_MAX_METRIC_FRAME_BYTES;
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 4096 || maxFrameBytes > MAX_FRAME_BYTES) {
    throw new TrainingImportError(null, `maxFrameBytes must be an integer in 4096..${MAX_FRAME_BYTES}, got ${maxFrameBytes}`);
  }
  return { name, host: opts.host, tags: opts.tags, maxPointsPerFrame, maxFrameBytes };
}

/** Run key of a training log: `import:` + the first 32 hex of sha256 of its identity text. */
export function trainingRunKey(identity: string): string {
  return `import:${sha256Hex(identity).slice(0, 32)}`;
}

/**
 * Default run name of a log at `path`: its folder's name, or the folder above when the log sits in
 * a Trainer `checkpoint-<N>` folder (`out/qwen-drafter/checkpoint-500/trainer_state.json` →
 * `qwen-drafter`); the file name when the path names no folder.
 */
export function defaultTrainingRunName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
  parts.pop();
  while (parts.length > 0 && /^checkpoint-\d+$/.test(parts[parts.length - 1] as string)) parts.pop();
  const folder = parts[parts.length - 1];
  return (folder === undefined || folder === ".." ? baseName(path) : folder).slice(0, 300);
}

/** Deterministic frame id: `<run key>/<kind>/<first 16 hex of sha256 of the given body>`. */
function frameId(runKey: string, kind: string, body: unknown): string {
  return `${runKey}/${kind}/${sha256Hex(stringifyJson(body)).slice(0, 16)}`;
}

/** Puts `id` right after `v`, the order every Pitwall frame uses. */
function withId<T extends { v: typeof PROTOCOL_VERSION }>(body: T, id: string): T & { id: string } {
  const { v, ...rest } = body;
  return { v, id, ...rest } as T & { id: string };
}

/** Snapshots oldest first: by last step (none = oldest), then content hash (host-independent). */
function snapshotOrder(a: ParsedTrainingLog, b: ParsedTrainingLog): number {
  const sa = a.lastStep ?? -1;
  const sb = b.lastStep ?? -1;
  if (sa !== sb) return sa - sb;
  return a.contentHash < b.contentHash ? -1 : a.contentHash > b.contentHash ? 1 : 0;
}

type RunStartInput = Extract<ClientFrameInput, { type: "run.start" }>;
type RunMetricsInput = Extract<ClientFrameInput, { type: "run.metrics" }>;
type RunProgressInput = Extract<ClientFrameInput, { type: "run.progress" }>;
type RunEndInput = Extract<ClientFrameInput, { type: "run.end" }>;

/**
 * Builds runs from parsed training logs. Logs with the same identity (snapshots of one training:
 * `checkpoint-500/` and `checkpoint-1000/trainer_state.json`) become ONE run: their metrics are
 * merged oldest snapshot first, and for each (key, step) the value read last wins (a later line of
 * one file, or a newer snapshot), which is what the server's latest-wins upsert would keep too.
 *
 * Frames per run, in order:
 * - `run.start`: kind `training`, the name, `config` of the newest snapshot plus `format` and
 *   `sourceFiles` (base names), `total`/`unit: "steps"` when the planned steps are known.
 * - `run.metrics`: points sorted by (step, key), split in order into frames of at most
 *   `maxPointsPerFrame` points and `maxFrameBytes` bytes; a log that grows only changes its last
 *   frames, so re-importing it resends little (earlier frames keep their ids).
 * - `run.progress`: `done` = last step, `total` = planned steps, unit `steps`, worker `import`,
 *   `bootId` derived from the run key (no counters, so the boot only needs to be stable).
 * - `run.end` at the last logged step: `succeeded` when the newest snapshot shows training finished
 *   (reached its planned steps), else `ended` (stopped there, outcome unknown: a log cut mid-run or
 *   without a final line); `endedAt` = the log's last wall-clock time when it records one
 *   (`run.start.startedAt` = its first), else the server's receive time. Its id also hashes the
 *   `run.start` id: a changed `run.start` (new name, tags) is applied again and sets the run back to
 *   running, so the end must be applied again after it.
 * Frame ids hash their content, so the same input gives identical frames.
 * @throws TrainingImportError when `opts.name` is given for logs of more than one training run.
 */
export function buildTrainingRuns(logs: readonly ParsedTrainingLog[], opts: CheckedTrainingOptions): TrainingImportResult {
  const groups = new Map<string, ParsedTrainingLog[]>();
  for (const log of logs) {
    const key = trainingRunKey(log.identity);
    const group = groups.get(key);
    if (group) group.push(log);
    else groups.set(key, [log]);
  }
  if (opts.name !== undefined && groups.size > 1) {
    const firsts = [...groups.values()].map((g) => (g[0] as ParsedTrainingLog).path);
    throw new TrainingImportError(
      null,
      `a name names one run, but these files hold ${groups.size} different training runs (${firsts.join(", ")}); import them separately`,
    );
  }

  const runs: ImportedTrainingRun[] = [];
  const problems: ImportProblem[] = [];
  for (const [runKey, group] of groups) {
    const ordered = [...group].sort(snapshotOrder);
    const newest = ordered[ordered.length - 1] as ParsedTrainingLog;
    if (ordered.every((l) => l.metrics.length === 0 && l.lastStep === null)) {
      for (const l of ordered) problems.push({ file: l.path, line: 0, message: "no training step in this log; nothing imported" });
      continue;
    }
    runs.push(buildOne(runKey, ordered, newest, opts));
  }
  runs.sort((a, b) => naturalCompare(a.files.at(-1) ?? "", b.files.at(-1) ?? "") || (a.runKey < b.runKey ? -1 : 1));
  return { runs, problems };
}

function buildOne(runKey: string, ordered: ParsedTrainingLog[], newest: ParsedTrainingLog, opts: CheckedTrainingOptions): ImportedTrainingRun {
  const byPoint = new Map<string, TrainingMetric>();
  for (const log of ordered) {
    for (const m of log.metrics) {
      const id = `${m.key}\u0000${m.step}`;
      byPoint.delete(id);
      byPoint.set(id, m);
    }
  }
  const points: MetricPointInput[] = [...byPoint.values()]
    .sort((a, b) => a.step - b.step || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((m) => ({ key: m.key, step: m.step, value: m.value }));

  let lastStep: number | null = null;
  for (const log of ordered) if (log.lastStep !== null) lastStep = Math.max(lastStep ?? 0, log.lastStep);
  const totalSteps = newest.totalSteps;
  const finished = ordered.some((l) => l.finished && l.lastStep === newest.lastStep);
  const startedAtMs = ordered.reduce<number | null>((min, l) => (l.startedAtMs === null ? min : min === null ? l.startedAtMs : Math.min(min, l.startedAtMs)), null);
  const endedAtMs = newest.endedAtMs;

  const sourceFiles = [...new Set(ordered.map((l) => baseName(l.path)))];
  const config: JsonObject = { format: newest.format };
  for (const [k, v] of Object.entries(newest.config)) setOwn(config, k, v);
  config.sourceFiles = sourceFiles;
  const name = opts.name ?? defaultTrainingRunName(newest.path);

  const startBody: Omit<RunStartInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.start",
    run: runKey,
    name,
    kind: "training",
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(startedAtMs !== null ? { startedAt: startedAtMs } : {}),
    config,
    ...(opts.tags !== undefined && opts.tags.length > 0 ? { tags: opts.tags } : {}),
    ...(totalSteps !== null ? { total: totalSteps } : {}),
    unit: "steps",
  };
  const startId = frameId(runKey, "start", startBody);
  const frames: ClientFrameInput[] = [withId(startBody, startId)];

  for (const chunk of chunkMetricPoints(points, runKey, opts)) {
    const body: Omit<RunMetricsInput, "id"> = { v: PROTOCOL_VERSION, type: "run.metrics", run: runKey, points: chunk };
    frames.push(withId(body, frameId(runKey, "metrics", body)));
  }

  const progressBody: Omit<RunProgressInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.progress",
    run: runKey,
    workerId: IMPORT_WORKER_ID,
    bootId: `import-${sha256Hex(runKey).slice(0, 16)}`,
    ...(lastStep !== null ? { done: lastStep } : {}),
    ...(totalSteps !== null ? { total: totalSteps } : {}),
    unit: "steps",
  };
  frames.push(withId(progressBody, frameId(runKey, "progress", progressBody)));

  const endStatus = finished ? "succeeded" : "ended";
  const endBody: Omit<RunEndInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.end",
    run: runKey,
    status: endStatus,
    ...(endedAtMs !== null ? { endedAt: endedAtMs } : {}),
  };
  // Not hashing the last step: without wall-clock times a grown log's `ended` must not be applied
  // again (the server would move endedAt to the import time, a duration the log never had).
  frames.push(withId(endBody, frameId(runKey, "end", { end: endBody, after: startId })));

  return {
    runKey,
    name,
    format: newest.format,
    files: ordered.map((l) => l.path),
    pointCount: points.length,
    lastStep,
    totalSteps,
    finished,
    endStatus,
    repeatedSteps: newest.repeatedSteps,
    frames,
  };
}

/**
 * Splits points, in order, into chunks of at most `maxPointsPerFrame` points and `maxFrameBytes`
 * serialised bytes (envelope + points + commas, measured exactly with `stringifyJson`). A metric
 * point is at most a few hundred bytes (key ≤ 200 chars), so one always fits.
 */
function chunkMetricPoints(points: readonly MetricPointInput[], runKey: string, opts: CheckedTrainingOptions): MetricPointInput[][] {
  // The id has a fixed length, so the envelope size is known before the id is.
  const envelope = utf8ByteLength(
    stringifyJson({ v: PROTOCOL_VERSION, id: `${runKey}/metrics/${"0".repeat(16)}`, type: "run.metrics", run: runKey, points: [] }),
  );
  const budget = opts.maxFrameBytes - envelope;
  const chunks: MetricPointInput[][] = [];
  let current: MetricPointInput[] = [];
  let currentBytes = 0;
  for (const point of points) {
    const bytes = utf8ByteLength(stringifyJson(point));
    const added = current.length === 0 ? bytes : bytes + 1;
    if (current.length > 0 && (current.length >= opts.maxPointsPerFrame || currentBytes + added > budget)) {
      chunks.push(current);
      current = [];
      currentBytes = 0;
    }
    currentBytes += current.length === 0 ? bytes : bytes + 1;
    current.push(point);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
