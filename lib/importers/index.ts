import {
  detectBenchmarkDocumentFormat,
  detectFormat,
  importBenchmarkFilesAs,
  type ImportedRun,
  type ImportOptions,
} from "./benchmark-import";
import { detectEvalFormat, importEvalFilesAs } from "./eval-import";
import type { ImportedEvalRun } from "./eval-run";
import { detectSessionFormat, importSessionFilesAs, type ImportedSession } from "./session-import";
import type { BenchmarkFormat } from "./source-common";
import type { ImportFile, ImportProblem } from "./source-text";
import type { TrainingFormat } from "./training-common";
import { detectTrainingFormat, importTrainingFilesAs } from "./training-import";
import type { ImportedTrainingRun } from "./training-run";

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
 * the log shows training finished (see training-run.ts for identity and frames):
 * - `hf-trainer-state`: Hugging Face Transformers `Trainer` trainer_state.json.
 * - `llamafactory-trainer-log`: LLaMA-Factory trainer_log.jsonl.
 * - `metrics-csv`: CSV metric tables (`step,loss,…`; several tables separated by blank lines).
 *
 * Agent sessions → `session.todos` snapshots, one per todo-list write (see {@link importSessionFiles}):
 * - `opencode-export`: `opencode export <sessionID>` JSON.
 * - `claude-code-transcript`: Claude Code `~/.claude/projects/<cwd>/<sessionId>.jsonl`.
 * {@link importFiles} takes any mix of these files (what `pitwall import` does).
 */

export type { BenchmarkFormat } from "./source-common";
export type { ImportFile, ImportProblem } from "./source-text";
export { BENCHMARK_FORMATS } from "./source-common";
export { BenchmarkImportError, UnknownFormatError } from "./errors";
export {
  classifyRow,
  detectBenchmarkDocumentFormat,
  detectFormat,
  importBenchmarkFiles,
  parseBenchmarkFile,
} from "./benchmark-import";
export type { ImportedRun, ImportOptions, ImportResult } from "./benchmark-import";
export { DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_POINTS_PER_FRAME } from "./benchmark-run";
export type { BenchmarkScenario, MappedRecord, ParsedFile } from "./benchmark-run";
export { summariseServerInfo } from "./sglang-bench-serving";
export type { BenchmarkDocumentModule } from "./benchmark-document";
export { readJsonDocument } from "./source-text";
export { detectEvalFormat, importEvalFiles, parseEvalFile } from "./eval-import";
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
export { parseNumberLike } from "./source-values";
export { parseDurationS, TRAINING_FORMATS, TrainingImportError } from "./training-common";
export type { TrainingFormat } from "./training-common";
export {
  DEFAULT_MAX_METRIC_FRAME_BYTES,
  DEFAULT_MAX_METRIC_POINTS_PER_FRAME,
} from "./training-run";
export type {
  ImportedTrainingRun,
  TrainingImportOptions,
  TrainingImportResult,
} from "./training-run";
export { describeRepeatedSteps } from "./training-repeats";
export type { RepeatedStepsSummary } from "./training-repeats";
export { detectTrainingFormat, importTrainingFiles, parseTrainingFile } from "./training-import";
export { isMetricsCsv } from "./metrics-csv";
export {
  buildSessionFrames,
  detectSessionFormat,
  importSessionFiles,
  SessionImportError,
} from "./session-import";
export type { ImportedSession, SessionImportOptions, SessionImportResult } from "./session-import";
export { parseClaudeCodeTranscript, parseTranscriptTimestamp } from "./claude-code-transcript";
export { parseOpencodeExport } from "./opencode-export";
export { readTodoList, SESSION_FORMATS, sessionKeyFor } from "./session-common";
export type {
  ParsedSession,
  ParsedSessionFile,
  ParsedTodoSnapshot,
  SessionFormat,
} from "./session-common";

const ANY_FILES =
  "benchmark result or training log (expected SGLang bench_serving --output-file JSONL, vLLM bench serve --save-result JSON/JSONL, GenAI-Perf profile_export_genai_perf.json, GuideLLM benchmarks.json, Hugging Face trainer_state.json, LLaMA-Factory trainer_log.jsonl or a CSV metric table with a step column), nor an eval file (SpecForge bench_eagle3 results JSON, SGLang server log), nor an agent session (opencode export JSON, Claude Code transcript JSONL)";

/** What {@link detectImportFormat} found: a benchmark result file or a training log, and its format. */
export type DetectedFormat =
  { kind: "benchmark"; format: BenchmarkFormat } | { kind: "training"; format: TrainingFormat };

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
export function importFiles(
  files: readonly ImportFile[],
  opts: Pick<ImportOptions, "name" | "host" | "tags" | "scenario"> = {},
): AnyImportResult {
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
  const s =
    sessions.length > 0
      ? importSessionFilesAs(sessions, { host: opts.host }, ANY_FILES)
      : { sessions: [], problems: [] };
  const b =
    benchmark.length > 0
      ? importBenchmarkFilesAs(benchmark, { ...options, scenario: opts.scenario }, ANY_FILES)
      : { runs: [], problems: [] };
  const t =
    training.length > 0
      ? importTrainingFilesAs(training, options, ANY_FILES)
      : { runs: [], problems: [] };
  const e =
    evals.length > 0 ? importEvalFilesAs(evals, options, ANY_FILES) : { runs: [], problems: [] };
  return {
    benchmarkRuns: b.runs,
    trainingRuns: t.runs,
    evalRuns: e.runs,
    sessions: s.sessions,
    problems: [...b.problems, ...t.problems, ...e.problems, ...s.problems],
  };
}
