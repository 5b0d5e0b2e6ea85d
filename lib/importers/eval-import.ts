import { UnknownFormatError } from "./errors";
import {
  buildEvalRuns,
  checkEvalOptions,
  type EvalFormat,
  type EvalFormatModule,
  type EvalImportOptions,
  type EvalImportResult,
  type ParsedEvalFile,
} from "./eval-run";
import { parseDistinct } from "./import-files";
import { sglangServerLog } from "./sglang-server-log";
import type { ImportFile, ImportProblem } from "./source-text";
import { specforgeBenchEagle3 } from "./specforge-bench";

/**
 * Eval entry points: detection across the eval formats (SpecForge bench_eagle3 results, SGLang
 * server logs), parsing one file, importing several (see eval-run.ts for the frames). Re-exported
 * by ./index.
 */

/** The eval modules, in detection order (a results document, then a log). */
const EVAL_MODULES: readonly EvalFormatModule[] = [specforgeBenchEagle3, sglangServerLog];

const EVAL_FILES =
  "eval file (expected a SpecForge bench_eagle3 results JSON or an SGLang server log with decode stats lines)";

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
export function parseEvalFile(file: ImportFile): {
  parsed: ParsedEvalFile;
  problems: ImportProblem[];
} {
  return parseEvalFileAs(file, EVAL_FILES);
}

function parseEvalFileAs(
  file: ImportFile,
  expected: string,
): { parsed: ParsedEvalFile; problems: ImportProblem[] } {
  const mod = EVAL_MODULES.find((m) => m.recognises(file.text));
  if (!mod)
    throw new UnknownFormatError(
      file.path,
      file.text.trim() === ""
        ? "the file is empty"
        : "no bench_eagle3 results document or SGLang decode stats line found",
      expected,
    );
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
export function importEvalFiles(
  files: readonly ImportFile[],
  opts: EvalImportOptions = {},
): EvalImportResult {
  return importEvalFilesAs(files, opts, EVAL_FILES);
}

/** {@link importEvalFiles} naming `expected` in the error for a file that is no eval file. */
export function importEvalFilesAs(
  files: readonly ImportFile[],
  opts: EvalImportOptions,
  expected: string,
): EvalImportResult {
  const options = checkEvalOptions(opts);
  const { parsed, problems } = parseDistinct(files, (file) => parseEvalFileAs(file, expected));
  const built = buildEvalRuns(parsed, options);
  return { runs: built.runs, problems: [...problems, ...built.problems] };
}
