import { BENCHMARK_SCENARIOS, MAX_FRAME_BYTES, runStartFrame, type ClientFrameInput } from "../protocol/frames";
import { describeIssues } from "../protocol/validate";
import { parseLenientJson } from "../protocol/json";
import {
  baseName,
  countLines,
  isPlainObject,
  iterateLines,
  MIN_FORMAT_SCORE,
  readJsonRecords,
  sha256Hex,
  type BenchmarkFormat,
  type BenchmarkFormatModule,
  type ImportFile,
  type ImportProblem,
  type JsonObject,
} from "./benchmark-common";
import { readJsonDocument, type BenchmarkDocumentModule } from "./benchmark-document";
import { buildRun, canonicalFileOrder, DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_POINTS_PER_FRAME, type BenchmarkScenario, type MappedRecord, type ParsedFile } from "./benchmark-run";
import {
  buildEvalRuns,
  checkEvalOptions,
  type EvalFormat,
  type EvalFormatModule,
  type EvalImportOptions,
  type EvalImportResult,
  type ImportedEvalRun,
  type ParsedEvalFile,
} from "./eval-run";
import { genaiPerf } from "./genai-perf";
import { guidellm } from "./guidellm";
import { sglangBenchServing } from "./sglang-bench-serving";
import { sglangServerLog } from "./sglang-server-log";
import { specforgeBenchEagle3 } from "./specforge-bench";
import type { ImportedTrainingRun, TrainingFormat } from "./training-common";
import { detectTrainingFormat, importTrainingFilesAs } from "./training-import";
import { parseDistinct } from "./import-files";
import { vllmBenchServe } from "./vllm-bench-serve";
import { readJsonArrayRecords, sweepSummaryRunName } from "./vllm-sweep-summary";
import { BENCHMARK_FILES, BenchmarkImportError, UnknownFormatError } from "./errors";
import { detectSessionFormat, importSessionFilesAs, type ImportedSession } from "./session-import";

export { BenchmarkImportError, UnknownFormatError } from "./errors";
export { buildSessionFrames, detectSessionFormat, importSessionFiles, SessionImportError } from "./session-import";
export type { ImportedSession, SessionImportOptions, SessionImportResult } from "./session-import";

/**
 * Benchmark importers: real benchmark tool output files → Pitwall protocol frames
 * (`run.start` + `run.benchmark`… + `run.end`, kind `benchmark`). Pure parsing: no database, no
 * network, no file system (callers pass file contents), so the CLI can run it on any host and send
 * the frames through the same ingest path as a live worker.
 *
 * Formats (see each module for the writer versions and quirks):
 * - `sglang-bench-serving`: SGLang `python -m sglang.bench_serving --output-file` JSONL.
 * - `vllm-bench-serve`: vLLM `vllm bench serve --save-result` JSON / `--append-result` JSONL
 *   (and legacy `benchmarks/benchmark_serving.py`).
 * - `genai-perf`: NVIDIA GenAI-Perf `profile_export_genai_perf.json` (one file per load level; the
 *   files of one import make one run) and AIPerf `profile_export_aiperf.json`.
 * - `guidellm`: GuideLLM `benchmarks.json` (a whole sweep in one file).
 *
 * Evaluations → `run.start` (kind `eval`) + `run.eval`… (raw-count τ results) + `run.metrics`… +
 * `run.end` (see eval-run.ts and {@link importEvalFiles}):
 * - `specforge-bench-eagle3`: SpecForge `benchmarks/bench_eagle3.py` results JSON.
 * - `sglang-server-log`: an SGLang server log's decode stats lines (accept len, gen throughput) as a
 *   time series (kind `benchmark` when the log shows no speculative decoding).
 *
 * Training logs → `run.start` (kind `training`) + `run.metrics`… + `run.progress` + `run.end` when
 * the log shows training finished (see training-common.ts for identity and frames):
 * - `hf-trainer-state`: Hugging Face Transformers `Trainer` trainer_state.json.
 * - `llamafactory-trainer-log`: LLaMA-Factory trainer_log.jsonl.
 * - `metrics-csv`: CSV metric tables (`step,loss,…`; several tables separated by blank lines).
 *
 * Agent sessions → `session.todos` snapshots, one per todo-list write (see {@link importSessionFiles}):
 * - `opencode-export`: `opencode export <sessionID>` JSON.
 * - `claude-code-transcript`: Claude Code `~/.claude/projects/<cwd>/<sessionId>.jsonl`.
 * {@link importFiles} takes any mix of these files (what `pitwall import` does).
 */

export type { BenchmarkFormat, ImportProblem } from "./benchmark-common";
export { BENCHMARK_FORMATS } from "./benchmark-common";
export { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_POINTS_PER_FRAME } from "./benchmark-run";
export type { BenchmarkScenario, MappedRecord, ParsedFile } from "./benchmark-run";
export { summariseServerInfo } from "./sglang-bench-serving";
export type { BenchmarkDocumentModule } from "./benchmark-document";
export { readJsonDocument } from "./benchmark-document";
export {
  DEFAULT_MAX_EVAL_FRAME_BYTES,
  DEFAULT_MAX_EVAL_METRIC_POINTS_PER_FRAME,
  DEFAULT_MAX_RESULTS_PER_FRAME,
  EVAL_FORMATS,
  EvalImportError,
} from "./eval-run";
export type { EvalFormat, EvalImportOptions, EvalImportResult, ImportedEvalRun } from "./eval-run";
export { isSpecForgeResults, recoverSpecForgeCounts } from "./specforge-bench";
export type { RecoveredCounts } from "./specforge-bench";
export { parseStatsLine, summariseServerArgsLine } from "./sglang-server-log";
export type { SglangStatsLine } from "./sglang-server-log";
export { vllmMetadata } from "./vllm-bench-serve";
export {
  DEFAULT_MAX_METRIC_FRAME_BYTES,
  DEFAULT_MAX_METRIC_POINTS_PER_FRAME,
  parseDurationS,
  parseNumberLike,
  TRAINING_FORMATS,
  TrainingImportError,
} from "./training-common";
export type { ImportedTrainingRun, TrainingFormat, TrainingImportOptions, TrainingImportResult } from "./training-common";
export { describeRepeatedSteps } from "./training-repeats";
export { detectTrainingFormat, importTrainingFiles, parseTrainingFile } from "./training-import";
export { isMetricsCsv } from "./metrics-csv";
export type { RepeatedStepsSummary } from "./training-repeats";
export { parseClaudeCodeTranscript, parseTranscriptTimestamp } from "./claude-code-transcript";
export { parseOpencodeExport, readTodoList, SESSION_FORMATS, sessionKeyFor } from "./opencode-export";
export type { ParsedSession, ParsedSessionFile, ParsedTodoSnapshot, SessionFormat } from "./opencode-export";

/** The format modules, in detection order. */
const FORMAT_MODULES: readonly BenchmarkFormatModule[] = [sglangBenchServing, vllmBenchServe];
/** The one-document benchmark formats (checked before the row formats; their marker keys never occur in rows). */
const DOCUMENT_MODULES: readonly BenchmarkDocumentModule[] = [genaiPerf, guidellm];
/** The eval modules, in detection order (a results document, then a log). */
const EVAL_MODULES: readonly EvalFormatModule[] = [specforgeBenchEagle3, sglangServerLog];

const EVAL_FILES = "eval file (expected a SpecForge bench_eagle3 results JSON or an SGLang server log with decode stats lines)";
const ANY_FILES =
  "benchmark result or training log (expected SGLang bench_serving --output-file JSONL, vLLM bench serve --save-result JSON/JSONL, GenAI-Perf profile_export_genai_perf.json, GuideLLM benchmarks.json, Hugging Face trainer_state.json, LLaMA-Factory trainer_log.jsonl or a CSV metric table with a step column), nor an eval file (SpecForge bench_eagle3 results JSON, SGLang server log), nor an agent session (opencode export JSON, Claude Code transcript JSONL)";

/** How many non-blank lines {@link detectFormat} looks at before giving up. */
const DETECT_MAX_LINES = 20;

export type { ImportFile } from "./benchmark-common";

/**
 * Import options.
 * - `name`: run name; with several files it also makes them ONE run (default: one run per file,
 *   named by the file's base name). At most 300 chars (longer names are cut).
 * - `host`: host the benchmark ran on (`run.start.host`; letters, digits, '.', '_', '-').
 * - `tags`: run tags (at most 50, each 1–100 chars).
 * - `scenario`: the scenario of every imported point (`throughput`, the importers' default, or
 *   `long-context` for runs at 30K/60K/100K input tokens); point keys and the run key do not depend
 *   on it, so re-importing with another scenario re-labels the same points.
 * - `maxPointsPerFrame` (default 500, at most 5000) and `maxFrameBytes` (default 768 KiB, at most
 *   1 MiB): limits for each `run.benchmark` frame, measured as serialised by `stringifyJson`.
 */
export interface ImportOptions {
  name?: string;
  host?: string;
  tags?: string[];
  scenario?: BenchmarkScenario;
  maxPointsPerFrame?: number;
  maxFrameBytes?: number;
}

/**
 * One imported run: its deterministic `runKey` (`import:<32 hex>`), `name`, source `format`,
 * `files` (paths in canonical order: natural order of base names, then content hash),
 * `pointCount` (one point per result line; per benchmark of a GuideLLM report, per GenAI-Perf
 * export) and `frames` to send in order
 * (`run.start`, `run.benchmark`…, `run.end`); every frame passes `checkFrame`.
 */
export interface ImportedRun {
  runKey: string;
  name: string;
  format: BenchmarkFormat;
  files: string[];
  pointCount: number;
  frames: ClientFrameInput[];
}

/** Result of {@link importBenchmarkFiles}: the runs, and every line-level problem skipped over. */
export interface ImportResult {
  runs: ImportedRun[];
  problems: ImportProblem[];
}

/**
 * The format one parsed JSON object belongs to, or null. A result row must have numeric
 * `completed` and `duration` (both writers always write them); then the module with the most
 * format-specific keys wins, if it has at least two and strictly more than any other.
 */
export function classifyRow(row: unknown): BenchmarkFormat | null {
  if (!isPlainObject(row) || typeof row.completed !== "number" || typeof row.duration !== "number") return null;
  let best: BenchmarkFormatModule | null = null;
  let bestScore = 0;
  let tie = false;
  for (const mod of FORMAT_MODULES) {
    const s = mod.score(row);
    if (s > bestScore) {
      best = mod;
      bestScore = s;
      tie = false;
    } else if (s === bestScore && s > 0) tie = true;
  }
  return best && !tie && bestScore >= MIN_FORMAT_SCORE ? best.format : null;
}

/**
 * Detects a file's format from its content (key presence, never version strings): the format of
 * the first of its first 20 non-blank lines that is a recognisable result row; a pretty-printed
 * single JSON object is also read, and a JSON array of rows (`vllm bench sweep` summary.json) by
 * its first element. Returns null when nothing matches. Never throws.
 */
export function detectFormat(text: string): BenchmarkFormat | null {
  const array = readJsonArrayRecords("", text);
  if (array) return array.records.length > 0 ? classifyRow(array.records[0]?.row) : null;
  let seen = 0;
  for (const { text: line } of iterateLines(text)) {
    if (!/\S/.test(line)) continue;
    let value: unknown;
    try {
      value = parseLenientJson(line);
    } catch {
      if (seen === 0) {
        try {
          return classifyRow(parseLenientJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
        } catch {
          // not one JSON document either: keep scanning lines
        }
      }
      value = undefined;
    }
    const format = classifyRow(value);
    if (format) return format;
    if (++seen >= DETECT_MAX_LINES) break;
  }
  return null;
}

/**
 * Detects a one-document benchmark file (GenAI-Perf profile export, GuideLLM report) from its
 * content (key presence, never version strings): the format whose module recognises the file's JSON
 * document ({@link readJsonDocument}). Null otherwise, also for JSON-lines files. Never throws.
 */
export function detectBenchmarkDocumentFormat(text: string): BenchmarkFormat | null {
  return documentModuleOf(readJsonDocument(text))?.format ?? null;
}

function documentModuleOf(doc: unknown): BenchmarkDocumentModule | null {
  return DOCUMENT_MODULES.find((m) => m.recognises(doc)) ?? null;
}

function documentModuleFor(format: BenchmarkFormat): BenchmarkDocumentModule | null {
  return DOCUMENT_MODULES.find((m) => m.format === format) ?? null;
}

function moduleFor(format: BenchmarkFormat): BenchmarkFormatModule {
  const mod = FORMAT_MODULES.find((m) => m.format === format);
  if (!mod) throw new Error(`no importer module for format ${format}`);
  return mod;
}

/**
 * Parses one file. A GenAI-Perf profile export or GuideLLM report (one JSON document,
 * {@link detectBenchmarkDocumentFormat}) is read by its module. Otherwise every non-blank line is a
 * result (see `readJsonRecords` for the one-object fallback); the file's format is that of its first
 * recognisable row; lines that are not JSON, not objects, not result rows, or rows of another format
 * are returned as problems and skipped.
 * @returns the parsed file (records mapped to points) and its line problems.
 * @throws UnknownFormatError naming the file when no line is a recognisable result.
 */
export function parseBenchmarkFile(file: ImportFile): { parsed: ParsedFile; problems: ImportProblem[] } {
  return parseBenchmarkFileAs(file, BENCHMARK_FILES);
}

function parseBenchmarkFileAs(file: ImportFile, expected: string): { parsed: ParsedFile; problems: ImportProblem[] } {
  const doc = readJsonDocument(file.text);
  const docModule = documentModuleOf(doc);
  if (docModule && isPlainObject(doc)) {
    const result = docModule.parse(file.path, file.text, doc);
    if (result.parsed.records.length === 0) {
      const first = result.problems[0];
      throw new UnknownFormatError(file.path, `${docModule.tool} output without any usable result${first ? ` (line ${first.line}: ${first.message})` : ""}`, expected);
    }
    return result;
  }
  const { records, problems } = readJsonArrayRecords(file.path, file.text) ?? readJsonRecords(file.path, file.text);
  let mod: BenchmarkFormatModule | null = null;
  const mapped: MappedRecord[] = [];
  const rowProblems: ImportProblem[] = [];
  for (const rec of records) {
    const format = classifyRow(rec.row);
    if (format === null) {
      rowProblems.push({ file: file.path, line: rec.line, message: describeUnrecognised(rec.row) });
      continue;
    }
    mod ??= moduleFor(format);
    if (format !== mod.format) {
      rowProblems.push({
        file: file.path,
        line: rec.line,
        message: `looks like ${moduleFor(format).tool} output, but this file is ${mod.tool} output; skipped`,
      });
      continue;
    }
    mapped.push({ line: rec.line, text: rec.text, mapping: mod.mapRow(rec.row) });
  }
  const allProblems = [...problems, ...rowProblems].sort((a, b) => a.line - b.line);
  if (!mod) {
    const first = allProblems[0];
    throw new UnknownFormatError(file.path, first ? `line ${first.line}: ${first.message}` : "the file is empty", expected);
  }
  return {
    parsed: {
      path: file.path,
      contentHash: sha256Hex(file.text),
      format: mod.format,
      lineCount: countLines(file.text),
      records: mapped,
    },
    problems: allProblems,
  };
}

function describeUnrecognised(row: JsonObject): string {
  const missing = ["completed", "duration"].filter((k) => typeof row[k] !== "number");
  if (missing.length > 0) return `not a benchmark result row: no numeric ${missing.map((k) => `'${k}'`).join(" or ")}`;
  return "not a recognisable SGLang bench_serving or vLLM bench serve result row";
}

interface CheckedOptions {
  name?: string;
  host?: string;
  tags?: string[];
  scenario?: BenchmarkScenario;
  maxPointsPerFrame: number;
  maxFrameBytes: number;
}

function checkOptions(opts: ImportOptions): CheckedOptions {
  const shape = runStartFrame.shape;
  const name = opts.name?.trim() ? opts.name.trim().slice(0, 300) : undefined;
  if (opts.host !== undefined) {
    const host = shape.host.safeParse(opts.host);
    if (!host.success) throw new BenchmarkImportError(null, `invalid host ${JSON.stringify(opts.host)}: ${describeIssues(host.error)}`);
  }
  if (opts.tags !== undefined) {
    const tags = shape.tags.safeParse(opts.tags);
    if (!tags.success) throw new BenchmarkImportError(null, `invalid tags: ${describeIssues(tags.error)}`);
  }
  if (opts.scenario !== undefined && !(BENCHMARK_SCENARIOS as readonly string[]).includes(opts.scenario)) {
    throw new BenchmarkImportError(null, `invalid scenario ${JSON.stringify(opts.scenario)}: expected ${BENCHMARK_SCENARIOS.join(" or ")}`);
  }
  const maxPointsPerFrame = opts.maxPointsPerFrame ?? DEFAULT_MAX_POINTS_PER_FRAME;
  if (!Number.isInteger(maxPointsPerFrame) || maxPointsPerFrame < 1 || maxPointsPerFrame > 5000) {
    throw new BenchmarkImportError(null, `maxPointsPerFrame must be an integer in 1..5000, got ${maxPointsPerFrame}`);
  }
  const maxFrameBytes = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 4096 || maxFrameBytes > MAX_FRAME_BYTES) {
    throw new BenchmarkImportError(null, `maxFrameBytes must be an integer in 4096..${MAX_FRAME_BYTES}, got ${maxFrameBytes}`);
  }
  return { name, host: opts.host, tags: opts.tags, scenario: opts.scenario, maxPointsPerFrame, maxFrameBytes };
}

/**
 * Imports benchmark result files as protocol frames.
 * - Each file's format is detected from its content.
 * - Without `opts.name`, every file becomes its own run named by its base name, except GenAI-Perf
 *   profile exports (one file per load level), which together make one run named by their artifact
 *   folder; with `opts.name`, all files become ONE run of that name (a sweep saved one file per
 *   level). One point per result line (per benchmark for GuideLLM, per file for GenAI-Perf).
 * - Files with identical content are imported once (the repeat is reported as a problem).
 * - Bad lines are skipped and reported as `{file, line, message}`; the other lines are imported.
 * Output is deterministic: the same files and options give byte-identical frames (run keys, point
 * keys and frame ids derive from the contents), whatever the paths or the order of `files`.
 * @throws UnknownFormatError when a file holds no recognisable result (nothing is imported).
 * @throws BenchmarkImportError for invalid options, or for files of different formats given
 *   together with `opts.name`.
 */
export function importBenchmarkFiles(files: readonly ImportFile[], opts: ImportOptions = {}): ImportResult {
  return importBenchmarkFilesAs(files, opts, BENCHMARK_FILES);
}

function importBenchmarkFilesAs(files: readonly ImportFile[], opts: ImportOptions, expected: string): ImportResult {
  const options = checkOptions(opts);
  const { parsed, problems } = parseDistinct(files, (file) => parseBenchmarkFileAs(file, expected));

  const groups: ParsedFile[][] = [];
  if (options.name !== undefined && parsed.length > 1) groups.push(parsed);
  else {
    const merged = new Map<BenchmarkFormat, ParsedFile[]>();
    for (const p of parsed) {
      if (!documentModuleFor(p.format)?.oneRunPerImport) {
        groups.push([p]);
        continue;
      }
      const group = merged.get(p.format);
      if (group) group.push(p);
      else {
        const fresh = [p];
        merged.set(p.format, fresh);
        groups.push(fresh);
      }
    }
  }
  if (groups.length === 1 && groups[0] && groups[0].length > 1) {
    const formats = [...new Set(groups[0].map((p) => p.format))];
    if (formats.length > 1) {
      throw new BenchmarkImportError(null, `cannot combine ${formats.join(" and ")} files into one run "${options.name}"; import them as separate runs`);
    }
  }

  const runs: ImportedRun[] = [];
  for (const group of groups) {
    const withRecords = group.filter((p) => p.records.length > 0);
    if (withRecords.length === 0) continue;
    const docModule = documentModuleFor((withRecords[0] as ParsedFile).format);
    const firstPath = (canonicalFileOrder(withRecords)[0] as ParsedFile).path;
    const defaultName = docModule ? docModule.defaultRunName(canonicalFileOrder(withRecords).map((p) => p.path)) : (sweepSummaryRunName(firstPath) ?? baseName(firstPath));
    const name = options.name ?? defaultName.slice(0, 300);
    const built = buildRun(withRecords, {
      name,
      host: options.host,
      tags: options.tags,
      scenario: options.scenario,
      maxPointsPerFrame: options.maxPointsPerFrame,
      maxFrameBytes: options.maxFrameBytes,
    });
    problems.push(...built.problems);
    runs.push({
      runKey: built.runKey,
      name: built.name,
      format: built.format,
      files: built.files,
      pointCount: built.pointCount,
      frames: built.frames,
    });
  }
  return { runs, problems };
}

/** What {@link detectImportFormat} found: a benchmark result file or a training log, and its format. */
export type DetectedFormat = { kind: "benchmark"; format: BenchmarkFormat } | { kind: "training"; format: TrainingFormat };

/**
 * Detects a benchmark result or training log: training logs first (their marker keys never occur
 * in benchmark rows), then one-document benchmark files ({@link detectBenchmarkDocumentFormat}),
 * then benchmark result rows ({@link detectFormat}). Returns null when none matches (agent
 * sessions and eval files included: see {@link detectSessionFormat}, {@link detectEvalFormat}).
 */
export function detectImportFormat(text: string): DetectedFormat | null {
  const training = detectTrainingFormat(text);
  if (training) return { kind: "training", format: training };
  const benchmark = detectBenchmarkDocumentFormat(text) ?? detectFormat(text);
  return benchmark ? { kind: "benchmark", format: benchmark } : null;
}

/** Result of {@link importFiles}: benchmark runs, training runs, eval runs, agent sessions, and every problem skipped over. */
export interface AnyImportResult {
  benchmarkRuns: ImportedRun[];
  trainingRuns: ImportedTrainingRun[];
  evalRuns: ImportedEvalRun[];
  sessions: ImportedSession[];
  problems: ImportProblem[];
}

/**
 * Imports any mix of agent sessions, benchmark result files, training logs and eval files, each
 * detected from its content ({@link detectSessionFormat} first, then {@link detectTrainingFormat},
 * then {@link detectEvalFormat}, else a benchmark file): sessions as {@link importSessionFiles}
 * does, benchmark files as {@link importBenchmarkFiles} does (with `name`, several benchmark files
 * make one run), training logs as {@link importTrainingFiles} does, eval files as
 * {@link importEvalFiles} does (`name` names each eval run). `name` and `tags` apply to runs;
 * `host` to all; `scenario` to the points of benchmark runs only.
 * @throws UnknownFormatError naming a file that is none of these (nothing is imported), and the
 *   errors of the four importers.
 */
export function importFiles(files: readonly ImportFile[], opts: Pick<ImportOptions, "name" | "host" | "tags" | "scenario"> = {}): AnyImportResult {
  const sessions: ImportFile[] = [];
  const training: ImportFile[] = [];
  const evals: ImportFile[] = [];
  const benchmark: ImportFile[] = [];
  for (const file of files) {
    if (detectSessionFormat(file.text)) sessions.push(file);
    else if (detectTrainingFormat(file.text)) training.push(file);
    else if (detectEvalFormat(file.text)) evals.push(file);
    else benchmark.push(file);
  }
  const options = { name: opts.name, host: opts.host, tags: opts.tags };
  const s = sessions.length > 0 ? importSessionFilesAs(sessions, { host: opts.host }, ANY_FILES) : { sessions: [], problems: [] };
  const b = benchmark.length > 0 ? importBenchmarkFilesAs(benchmark, { ...options, scenario: opts.scenario }, ANY_FILES) : { runs: [], problems: [] };
  const t = training.length > 0 ? importTrainingFilesAs(training, options, ANY_FILES) : { runs: [], problems: [] };
  const e = evals.length > 0 ? importEvalFilesAs(evals, options, ANY_FILES) : { runs: [], problems: [] };
  return {
    benchmarkRuns: b.runs,
    trainingRuns: t.runs,
    evalRuns: e.runs,
    sessions: s.sessions,
    problems: [...b.problems, ...t.problems, ...e.problems, ...s.problems],
  };
}

// ─── Evaluations ─────────────────────────────────────────────────────────────────────────────────

/**
 * Detects an eval file from its content (never its name): a SpecForge bench_eagle3 results
 * document (benchmark name → list of config rows with `batch_size` and `metrics`), or an SGLang
 * server log (a `[<time> TP0] Decode batch. #running-req: …` stats line anywhere in it). Returns
 * null otherwise. Never throws.
 */
export function detectEvalFormat(text: string): EvalFormat | null {
  return EVAL_MODULES.find((m) => m.recognises(text))?.format ?? null;
}

/**
 * Parses one eval file with the module its content matches.
 * @throws UnknownFormatError when it is no eval file; EvalImportError when it looked like one but
 *   holds nothing importable.
 */
export function parseEvalFile(file: ImportFile): { parsed: ParsedEvalFile; problems: ImportProblem[] } {
  return parseEvalFileAs(file, EVAL_FILES);
}

function parseEvalFileAs(file: ImportFile, expected: string): { parsed: ParsedEvalFile; problems: ImportProblem[] } {
  const mod = EVAL_MODULES.find((m) => m.recognises(file.text));
  if (!mod) throw new UnknownFormatError(file.path, file.text.trim() === "" ? "the file is empty" : "no bench_eagle3 results document or SGLang decode stats line found", expected);
  return mod.parse(file.path, file.text);
}

/**
 * Imports eval files (SpecForge bench_eagle3 results, SGLang server logs) as protocol frames:
 * `run.start`, `run.eval`… (results with raw counts), `run.metrics`…, `run.end` per run (see
 * eval-run.ts; each module documents how its producer's figure maps to τ).
 * - Every file is its own run, except snapshots of one growing log (same first stats line), which
 *   make one run; `opts.name` names every run.
 * - Files with identical content are imported once (the repeat is a problem at line 0).
 * - Bad records are skipped and reported as `{file, line, message}`.
 * Deterministic: the same files and options give identical frames, whatever the order of `files`.
 * @throws UnknownFormatError when a file is no eval file (nothing is imported).
 * @throws EvalImportError for invalid options.
 */
export function importEvalFiles(files: readonly ImportFile[], opts: EvalImportOptions = {}): EvalImportResult {
  return importEvalFilesAs(files, opts, EVAL_FILES);
}

function importEvalFilesAs(files: readonly ImportFile[], opts: EvalImportOptions, expected: string): EvalImportResult {
  const options = checkEvalOptions(opts);
  const { parsed, problems } = parseDistinct(files, (file) => parseEvalFileAs(file, expected));
  const built = buildEvalRuns(parsed, options);
  return { runs: built.runs, problems: [...problems, ...built.problems] };
}

