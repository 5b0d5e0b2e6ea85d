import { BENCHMARK_SCENARIOS, MAX_FRAME_BYTES, type ClientFrameInput } from "../protocol/frames";
import type { BenchmarkDocumentModule } from "./benchmark-document";
import {
  buildRun,
  canonicalFileOrder,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_POINTS_PER_FRAME,
  type BenchmarkScenario,
  type MappedRecord,
  type ParsedFile,
} from "./benchmark-run";
import { detectByLines } from "./detect-lines";
import { BENCHMARK_FILES, BenchmarkImportError, UnknownFormatError } from "./errors";
import { genaiPerf } from "./genai-perf";
import { guidellm } from "./guidellm";
import { checkFrameLimit, checkRunLabels, parseDistinct } from "./import-files";
import { sglangBenchServing } from "./sglang-bench-serving";
import {
  MIN_FORMAT_SCORE,
  type BenchmarkFormat,
  type BenchmarkFormatModule,
} from "./source-common";
import {
  baseName,
  countLines,
  isPlainObject,
  readJsonDocument,
  readJsonRecords,
  sha256Hex,
  type ImportFile,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import { vllmBenchServe } from "./vllm-bench-serve";
import { readJsonArrayRecords, sweepSummaryRunName } from "./vllm-sweep-summary";

/**
 * Benchmark-result entry points: detection across the benchmark formats (result rows of SGLang
 * bench_serving and vLLM bench serve, one-document GenAI-Perf and GuideLLM files), parsing one
 * file, importing several (see benchmark-run.ts for the frames). Re-exported by ./index.
 */

/** The row format modules, in detection order. */
const FORMAT_MODULES: readonly BenchmarkFormatModule[] = [sglangBenchServing, vllmBenchServe];
/** The one-document benchmark formats (checked before the row formats; their marker keys never occur in rows). */
const DOCUMENT_MODULES: readonly BenchmarkDocumentModule[] = [genaiPerf, guidellm];

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
  if (!isPlainObject(row) || typeof row.completed !== "number" || typeof row.duration !== "number")
    return null;
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
  return detectByLines(text, classifyRow);
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
export function parseBenchmarkFile(file: ImportFile): {
  parsed: ParsedFile;
  problems: ImportProblem[];
} {
  return parseBenchmarkFileAs(file, BENCHMARK_FILES);
}

function parseBenchmarkFileAs(
  file: ImportFile,
  expected: string,
): { parsed: ParsedFile; problems: ImportProblem[] } {
  const doc = readJsonDocument(file.text);
  const docModule = documentModuleOf(doc);
  if (docModule && isPlainObject(doc)) {
    const result = docModule.parse(file.path, file.text, doc);
    if (result.parsed.records.length === 0) {
      const first = result.problems[0];
      throw new UnknownFormatError(
        file.path,
        `${docModule.tool} output without any usable result${first ? ` (line ${first.line}: ${first.message})` : ""}`,
        expected,
      );
    }
    return result;
  }
  const { records, problems } =
    readJsonArrayRecords(file.path, file.text) ?? readJsonRecords(file.path, file.text);
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
    throw new UnknownFormatError(
      file.path,
      first ? `line ${first.line}: ${first.message}` : "the file is empty",
      expected,
    );
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
  if (missing.length > 0)
    return `not a benchmark result row: no numeric ${missing.map((k) => `'${k}'`).join(" or ")}`;
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
  const fail = (message: string) => new BenchmarkImportError(null, message);
  const labels = checkRunLabels(opts, fail);
  if (
    opts.scenario !== undefined &&
    !(BENCHMARK_SCENARIOS as readonly string[]).includes(opts.scenario)
  ) {
    throw fail(
      `invalid scenario ${JSON.stringify(opts.scenario)}: expected ${BENCHMARK_SCENARIOS.join(" or ")}`,
    );
  }
  return {
    ...labels,
    scenario: opts.scenario,
    maxPointsPerFrame: checkFrameLimit(
      opts.maxPointsPerFrame,
      DEFAULT_MAX_POINTS_PER_FRAME,
      1,
      5000,
      "maxPointsPerFrame",
      fail,
    ),
    maxFrameBytes: checkFrameLimit(
      opts.maxFrameBytes,
      DEFAULT_MAX_FRAME_BYTES,
      4096,
      MAX_FRAME_BYTES,
      "maxFrameBytes",
      fail,
    ),
  };
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
export function importBenchmarkFiles(
  files: readonly ImportFile[],
  opts: ImportOptions = {},
): ImportResult {
  return importBenchmarkFilesAs(files, opts, BENCHMARK_FILES);
}

/** {@link importBenchmarkFiles} naming `expected` in the error for a file that is no benchmark file. */
export function importBenchmarkFilesAs(
  files: readonly ImportFile[],
  opts: ImportOptions,
  expected: string,
): ImportResult {
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
      throw new BenchmarkImportError(
        null,
        `cannot combine ${formats.join(" and ")} files into one run "${options.name}"; import them as separate runs`,
      );
    }
  }

  const runs: ImportedRun[] = [];
  for (const group of groups) {
    const withRecords = group.filter((p) => p.records.length > 0);
    if (withRecords.length === 0) continue;
    const docModule = documentModuleFor((withRecords[0] as ParsedFile).format);
    const firstPath = (canonicalFileOrder(withRecords)[0] as ParsedFile).path;
    const defaultName = docModule
      ? docModule.defaultRunName(canonicalFileOrder(withRecords).map((p) => p.path))
      : (sweepSummaryRunName(firstPath) ?? baseName(firstPath));
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
