import { detectByLines } from "./detect-lines";
import { UnknownFormatError } from "./errors";
import { hfTrainerState } from "./hf-trainer-state";
import { parseDistinct } from "./import-files";
import { llamaFactoryTrainerLog } from "./llamafactory-trainer-log";
import { metricsCsv } from "./metrics-csv";
import type { ImportFile, ImportProblem } from "./source-text";
import type { ParsedTrainingLog, TrainingFormat, TrainingFormatModule } from "./training-common";
import {
  buildTrainingRuns,
  checkTrainingOptions,
  type TrainingImportOptions,
  type TrainingImportResult,
} from "./training-run";

/**
 * Training-log entry points: detection across the training formats, parsing one file, importing
 * several (snapshots of one training merged into one run, see training-run.ts).
 */

/** The training log modules, in detection order (their marker keys never overlap). */
const TRAINING_MODULES: readonly TrainingFormatModule[] = [
  metricsCsv,
  hfTrainerState,
  llamaFactoryTrainerLog,
];

/** What a training file was expected to be, for error messages. */
export const TRAINING_FILES =
  "training log (expected a Hugging Face trainer_state.json, a LLaMA-Factory trainer_log.jsonl or a CSV metric table with a step column)";

/**
 * Detects a training log's format from its content (key presence, never version strings): a line
 * among the first 20 non-blank ones that is a LLaMA-Factory trainer_log record (`current_steps` and
 * `total_steps`), or a document with a `log_history` array and `global_step` (Hugging Face
 * trainer_state.json, pretty-printed or on one line); first, a CSV metric table (a header with a
 * `step` column, metrics-csv.ts). Returns null otherwise. Never throws.
 */
export function detectTrainingFormat(text: string): TrainingFormat | null {
  const byText = TRAINING_MODULES.find((m) => m.recognisesText?.(text));
  if (byText) return byText.format;
  const mod = detectByLines(
    text,
    (value) => TRAINING_MODULES.find((m) => m.recognises(value)) ?? null,
  );
  return mod?.format ?? null;
}

/**
 * Parses one training log file with the module its content matches.
 * @throws UnknownFormatError when it is no training log; TrainingImportError when it looked like
 *   one but holds no usable record (e.g. a truncated trainer_state.json).
 */
export function parseTrainingFile(file: ImportFile): {
  parsed: ParsedTrainingLog;
  problems: ImportProblem[];
} {
  return parseTrainingFileAs(file, TRAINING_FILES);
}

/** {@link parseTrainingFile} naming `expected` in the error for a file that is no training log. */
export function parseTrainingFileAs(
  file: ImportFile,
  expected: string,
): { parsed: ParsedTrainingLog; problems: ImportProblem[] } {
  const format = detectTrainingFormat(file.text);
  const mod = TRAINING_MODULES.find((m) => m.format === format);
  if (!mod)
    throw new UnknownFormatError(
      file.path,
      file.text.trim() === ""
        ? "the file is empty"
        : "no trainer_state.json document or trainer_log line found",
      expected,
    );
  return mod.parse(file.path, file.text);
}

/**
 * Imports training logs (trainer_state.json, trainer_log.jsonl) as protocol frames.
 * - Snapshots of one training (same first log record: `checkpoint-<N>/trainer_state.json`, or a
 *   trainer_log.jsonl imported again after it grew) become ONE run; other logs, one run each.
 * - Files with identical content are imported once (the repeat is a problem at line 0).
 * - Bad records are skipped and reported as `{file, line, message}`; the rest is imported.
 * Output is deterministic: the same files and options give identical frames whatever the order of
 * `files`; run keys do not depend on paths or options.
 * @throws UnknownFormatError when a file is no training log (nothing is imported).
 * @throws TrainingImportError for invalid options, an unreadable trainer_state.json, or a name
 *   given for files of several training runs.
 */
export function importTrainingFiles(
  files: readonly ImportFile[],
  opts: TrainingImportOptions = {},
): TrainingImportResult {
  return importTrainingFilesAs(files, opts, TRAINING_FILES);
}

/** {@link importTrainingFiles} naming `expected` in the error for a file that is no training log. */
export function importTrainingFilesAs(
  files: readonly ImportFile[],
  opts: TrainingImportOptions,
  expected: string,
): TrainingImportResult {
  const options = checkTrainingOptions(opts);
  const { parsed, problems } = parseDistinct(files, (file) => parseTrainingFileAs(file, expected));
  const built = buildTrainingRuns(parsed, options);
  return { runs: built.runs, problems: [...problems, ...built.problems] };
}
