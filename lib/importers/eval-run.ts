import {
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  type ClientFrameInput,
  type EvalResultInput,
  type MetricPointInput,
} from "../protocol/frames";
import { chunkBySize, envelopeBytes, frameId, withId } from "./frame-building";
import { checkFrameLimit, checkRunLabels } from "./import-files";
import {
  baseName,
  naturalCompare,
  sha256Hex,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import { setOwn } from "./source-values";

/**
 * Run assembly for the evaluation importers (SpecForge `bench_eagle3` results, SGLang server logs):
 * a parsed file becomes `run.start` (kind `eval`, or `benchmark` for a serving log without
 * speculative decoding), `run.eval` frames (raw-count eval results), `run.metrics` frames (reported
 * figures and time series), `run.end`. Pure: no I/O besides hashing.
 *
 * Identity: the run key hashes the format's identity text (see each module: the whole file for a
 * results file, the first stats line for a log that grows), so importing the same file again
 * yields identical frames (the server dedupes by frame id) and a grown log continues its run.
 */

/** Evaluation formats the importers understand (one module each). */
export const EVAL_FORMATS = ["specforge-bench-eagle3", "sglang-server-log"] as const;
/** `"specforge-bench-eagle3"` (SpecForge `benchmarks/bench_eagle3.py` results JSON) or `"sglang-server-log"` (SGLang server log with decode stats lines). */
export type EvalFormat = (typeof EVAL_FORMATS)[number];

/** Default largest number of results in one `run.eval` frame (the protocol allows 5000). */
export const DEFAULT_MAX_RESULTS_PER_FRAME = 500;
/** Default largest number of points in one `run.metrics` frame (the protocol allows 10000). */
export const DEFAULT_MAX_EVAL_METRIC_POINTS_PER_FRAME = 2000;
/** Default largest serialised frame, in bytes: 768 KiB, well under the 1 MiB limit. */
export const DEFAULT_MAX_EVAL_FRAME_BYTES = 768 * 1024;

/** One file parsed by an eval format module. */
export interface ParsedEvalFile {
  path: string;
  /** SHA-256 (hex) of the file text. */
  contentHash: string;
  format: EvalFormat;
  /** Text naming the run; hashed into the run key (snapshots of one log share it). */
  identity: string;
  /** `eval`, or `benchmark` for a serving log without speculative decoding. */
  kind: "eval" | "benchmark";
  /** Eval results in source order; keys are unique within the file. */
  results: EvalResultInput[];
  /** Metric points in source order; for one (key, step) the later one wins. */
  metrics: MetricPointInput[];
  /** Run config facts (format, tool, model…); nulls left out. */
  config: JsonObject;
  /** Epoch ms of the first / last timestamp in the file, when it has any. */
  startedAt?: number;
  endedAt?: number;
  /** Run name when none is given (the file's base name unless the format knows better). */
  defaultName: string;
}

/**
 * One eval format. `recognises(text)` says, from content only, whether a file is this format;
 * `parse` reads it (bad records become problems).
 */
export interface EvalFormatModule {
  format: EvalFormat;
  /** Human name of the writer, for messages. */
  tool: string;
  recognises(text: string): boolean;
  /** @throws EvalImportError naming the file when the text holds nothing importable. */
  parse(path: string, text: string): { parsed: ParsedEvalFile; problems: ImportProblem[] };
}

/** An eval file or option that cannot be imported at all; `file` is null for option errors. */
export class EvalImportError extends Error {
  readonly file: string | null;
  constructor(file: string | null, message: string) {
    super(message);
    this.name = "EvalImportError";
    this.file = file;
  }
}

/**
 * Eval import options.
 * - `name`: run name for every run of the import (default: per file, see the format); at most 300
 *   chars. Unlike benchmark files, eval files never merge into one run by name.
 * - `host`, `tags`: as for benchmark imports.
 * - `maxResultsPerFrame` (default 500, ≤ 5000), `maxPointsPerFrame` (default 2000, ≤ 10000),
 *   `maxFrameBytes` (default 768 KiB, 4 KiB..1 MiB): frame limits, measured with `stringifyJson`.
 */
export interface EvalImportOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxResultsPerFrame?: number;
  maxPointsPerFrame?: number;
  maxFrameBytes?: number;
}

/** Options after {@link checkEvalOptions}. */
export interface CheckedEvalOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxResultsPerFrame: number;
  maxPointsPerFrame: number;
  maxFrameBytes: number;
}

/** Validates eval import options. @throws EvalImportError (file null) naming the bad option. */
export function checkEvalOptions(opts: EvalImportOptions): CheckedEvalOptions {
  const fail = (message: string) => new EvalImportError(null, message);
  return {
    ...checkRunLabels(opts, fail),
    maxResultsPerFrame: checkFrameLimit(
      opts.maxResultsPerFrame,
      DEFAULT_MAX_RESULTS_PER_FRAME,
      1,
      5000,
      "maxResultsPerFrame",
      fail,
    ),
    maxPointsPerFrame: checkFrameLimit(
      opts.maxPointsPerFrame,
      DEFAULT_MAX_EVAL_METRIC_POINTS_PER_FRAME,
      1,
      10_000,
      "maxPointsPerFrame",
      fail,
    ),
    maxFrameBytes: checkFrameLimit(
      opts.maxFrameBytes,
      DEFAULT_MAX_EVAL_FRAME_BYTES,
      4096,
      MAX_FRAME_BYTES,
      "maxFrameBytes",
      fail,
    ),
  };
}

/**
 * One imported eval run: deterministic `runKey` (`import:<32 hex>`), `name`, source `format`, run
 * `kind`, `files` (oldest snapshot first), `resultCount` (eval results with raw counts),
 * `metricPointCount`, and `frames` to send in order (`run.start`, `run.eval`…, `run.metrics`…,
 * `run.end`); every frame passes `checkFrame`.
 */
export interface ImportedEvalRun {
  runKey: string;
  name: string;
  format: EvalFormat;
  kind: "eval" | "benchmark";
  files: string[];
  resultCount: number;
  metricPointCount: number;
  frames: ClientFrameInput[];
}

/** Result of an eval import: the runs, and every record-level problem skipped over. */
export interface EvalImportResult {
  runs: ImportedEvalRun[];
  problems: ImportProblem[];
}

/** Run key of an eval file: `import:` + the first 32 hex of sha256 of `<format>\n<identity>`. */
export function evalRunKey(format: EvalFormat, identity: string): string {
  return `import:${sha256Hex(`${format}\n${identity}`).slice(0, 32)}`;
}

/** Snapshots oldest first: fewer metric points and results first, then content hash. */
function snapshotOrder(a: ParsedEvalFile, b: ParsedEvalFile): number {
  const sa = a.metrics.length + a.results.length;
  const sb = b.metrics.length + b.results.length;
  if (sa !== sb) return sa - sb;
  return a.contentHash < b.contentHash ? -1 : a.contentHash > b.contentHash ? 1 : 0;
}

type RunStartInput = Extract<ClientFrameInput, { type: "run.start" }>;
type RunEvalInput = Extract<ClientFrameInput, { type: "run.eval" }>;
type RunMetricsInput = Extract<ClientFrameInput, { type: "run.metrics" }>;
type RunEndInput = Extract<ClientFrameInput, { type: "run.end" }>;

/**
 * Builds runs from parsed eval files. Files with the same run key (snapshots of one growing log)
 * become ONE run: results merge by key and metric points by (key, step), the newest snapshot's
 * value winning. Frames per run, in order:
 * - `run.start`: the kind, the name, `config` (newest snapshot's facts plus `format` and
 *   `sourceFiles`), `startedAt` when the file has timestamps.
 * - `run.eval`: results in source order, at most `maxResultsPerFrame` and `maxFrameBytes` each.
 * - `run.metrics`: points sorted by (step, key), split the same way; a log that grows only changes
 *   its last frames, so earlier frame ids stay the same on re-import.
 * - `run.end`: `succeeded`, `endedAt` when known; its id also hashes the `run.start` id, so a
 *   changed `run.start` (new name or tags, which sets the run running again) is ended again.
 * Runs come back in natural order of their newest file's base name, then run key.
 */
export function buildEvalRuns(
  files: readonly ParsedEvalFile[],
  opts: CheckedEvalOptions,
): EvalImportResult {
  const groups = new Map<string, ParsedEvalFile[]>();
  for (const f of files) {
    const key = evalRunKey(f.format, f.identity);
    const g = groups.get(key);
    if (g) g.push(f);
    else groups.set(key, [f]);
  }
  const runs: ImportedEvalRun[] = [];
  const problems: ImportProblem[] = [];
  for (const [runKey, group] of groups) {
    const ordered = [...group].sort(snapshotOrder);
    if (ordered.every((f) => f.results.length === 0 && f.metrics.length === 0)) {
      for (const f of ordered)
        problems.push({
          file: f.path,
          line: 0,
          message: "nothing to import in this file (no result and no metric value)",
        });
      continue;
    }
    runs.push(buildOne(runKey, ordered, opts));
  }
  runs.sort(
    (a, b) =>
      naturalCompare(baseName(a.files.at(-1) ?? ""), baseName(b.files.at(-1) ?? "")) ||
      (a.runKey < b.runKey ? -1 : 1),
  );
  return { runs, problems };
}

function buildOne(
  runKey: string,
  ordered: readonly ParsedEvalFile[],
  opts: CheckedEvalOptions,
): ImportedEvalRun {
  const newest = ordered[ordered.length - 1] as ParsedEvalFile;
  const results = new Map<string, EvalResultInput>();
  const points = new Map<string, MetricPointInput>();
  let startedAt: number | undefined;
  let endedAt: number | undefined;
  for (const f of ordered) {
    for (const r of f.results) {
      results.delete(r.key);
      results.set(r.key, r);
    }
    for (const p of f.metrics) {
      const id = `${p.key}\u0000${String(p.step)}`;
      points.delete(id);
      points.set(id, p);
    }
    if (f.startedAt !== undefined)
      startedAt = startedAt === undefined ? f.startedAt : Math.min(startedAt, f.startedAt);
    if (f.endedAt !== undefined)
      endedAt = endedAt === undefined ? f.endedAt : Math.max(endedAt, f.endedAt);
  }
  const sortedPoints = [...points.values()].sort(
    (a, b) => compareSteps(a.step, b.step) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );

  const config: JsonObject = { format: newest.format };
  for (const [k, v] of Object.entries(newest.config)) setOwn(config, k, v);
  config.sourceFiles = [...new Set(ordered.map((f) => baseName(f.path)))];
  const name = opts.name ?? newest.defaultName.slice(0, 300);

  const startBody: Omit<RunStartInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.start",
    run: runKey,
    name,
    kind: newest.kind,
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    config,
    ...(opts.tags !== undefined && opts.tags.length > 0 ? { tags: opts.tags } : {}),
  };
  const startId = frameId(runKey, "start", startBody);
  const frames: ClientFrameInput[] = [withId(startBody, startId)];

  for (const chunk of chunkBySize(
    [...results.values()],
    opts.maxResultsPerFrame,
    opts.maxFrameBytes - envelopeBytes(runKey, "run.eval", "eval", "results"),
  )) {
    const body: Omit<RunEvalInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.eval",
      run: runKey,
      results: chunk,
    };
    frames.push(withId(body, frameId(runKey, "eval", body)));
  }
  for (const chunk of chunkBySize(
    sortedPoints,
    opts.maxPointsPerFrame,
    opts.maxFrameBytes - envelopeBytes(runKey, "run.metrics", "metrics", "points"),
  )) {
    const body: Omit<RunMetricsInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.metrics",
      run: runKey,
      points: chunk,
    };
    frames.push(withId(body, frameId(runKey, "metrics", body)));
  }

  const endBody: Omit<RunEndInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.end",
    run: runKey,
    status: "succeeded",
    ...(endedAt !== undefined ? { endedAt } : {}),
  };
  frames.push(withId(endBody, frameId(runKey, "end", { end: endBody, after: startId })));

  return {
    runKey,
    name,
    format: newest.format,
    kind: newest.kind,
    files: ordered.map((f) => f.path),
    resultCount: results.size,
    metricPointCount: sortedPoints.length,
    frames,
  };
}

/** Orders 64-bit steps (numbers or decimal strings) numerically. */
function compareSteps(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
