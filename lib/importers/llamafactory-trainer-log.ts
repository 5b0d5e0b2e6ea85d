import { parseLenientJson } from "../protocol/json";
import {
  countLines,
  isPlainObject,
  iterateLines,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import {
  collectMetrics,
  contentHashOf,
  parseDurationS,
  parseStepValue,
  TrainingImportError,
  type ParsedTrainingLog,
  type TrainingFormatModule,
  type TrainingMetric,
} from "./training-common";
import { RepeatedSteps } from "./training-repeats";

/**
 * LLaMA-Factory `trainer_log.jsonl`, appended by its `LogCallback.on_log` (one `json.dumps(logs)`
 * per Trainer log call, main process only; `save_on_each_node` on a shared disk makes each node
 * append the same step). Modelled on two generations of the writer:
 * - `llmtuner` (LLaMA-Factory ≤ 0.8): every key written, missing ones as `null`:
 *   `{current_steps, total_steps, loss, eval_loss, predict_loss, reward, learning_rate, epoch,
 *   percentage, elapsed_time, remaining_time}` (0.8 adds `accuracy`).
 * - `llamafactory` 0.9+: `lr` instead of `learning_rate`, null keys dropped, plus `throughput`
 *   (tokens/s since the start) and `total_tokens` when input tokens are counted, and
 *   `vram_allocated`/`vram_reserved` (GiB) with `RECORD_VRAM=1`. Some builds write `throughput`
 *   as a string (`"1234.56"`).
 * Eval-only / predict runs write progress-only lines (`current_steps`, `total_steps`,
 * `percentage`, times) every 5 prediction steps. `elapsed_time`/`remaining_time` are Python
 * `str(timedelta(seconds=int(s)))` texts (`"0:01:02"`, `"4 days, 5:06:09"`); elapsed time restarts
 * from 0 when a run resumes.
 *
 * Mapping:
 * - Step: `current_steps` (the global step). A line without a valid one is a problem.
 * - Metrics at that step, under the writer's own keys: every numeric value (numeric strings
 *   parsed) except `current_steps`, `total_steps` and `percentage` (derivable from the steps);
 *   `null` is skipped, never stored as 0. `elapsed_time` / `remaining_time` become the metrics
 *   `elapsedS` / `remainingS` in seconds: they change at every step (a series, not a config
 *   value), and `elapsedS` against step is the run's pace while `remainingS` is the writer's own
 *   ETA history.
 * - The same step written twice (two writers, or a resumed run re-logging steps after its last
 *   checkpoint): for each key, the later line wins; such steps are counted (training-repeats.ts).
 * - Progress: done = highest `current_steps`, total = `total_steps` of the last line (when > 0).
 * - Finished: the highest step reached its `total_steps` (`current_steps == total_steps`); else the
 *   run ends `ended` at its last step. No wall-clock times (`elapsed_time` is relative).
 * - Identity (run key): the text of the first valid line (it holds the first loss and the wall
 *   time of the first log, and stays put while the file grows; LLaMA-Factory deletes the file when
 *   a new run overwrites the folder).
 */

/** Keys of a log line that are not metrics (steps, derived percentage, durations handled apart). */
const NOT_METRICS: ReadonlySet<string> = new Set([
  "current_steps",
  "total_steps",
  "percentage",
  "elapsed_time",
  "remaining_time",
]);

/** Duration keys and the metric each becomes (seconds). */
const DURATIONS = [
  ["elapsed_time", "elapsedS"],
  ["remaining_time", "remainingS"],
] as const;

/** True for one parsed trainer_log line: an object with `current_steps` and `total_steps`. */
export function isTrainerLogLine(value: unknown): value is JsonObject {
  return (
    isPlainObject(value) &&
    Object.hasOwn(value, "current_steps") &&
    Object.hasOwn(value, "total_steps")
  );
}

const MAX_MESSAGE_CHARS = 300;

/** Parses one trainer_log.jsonl text; see the module comment for the mapping. */
function parse(
  path: string,
  text: string,
): { parsed: ParsedTrainingLog; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const metrics: TrainingMetric[] = [];
  const repeats = new RepeatedSteps();
  let identityLine: string | null = null;
  let lastStep: number | null = null;
  let totalSteps: number | null = null;
  // Whether the line with the highest step reached its total_steps.
  let reachedTotal = false;
  const endsWithNewline = text.slice(text.trimEnd().length).includes("\n");
  const lineCount = countLines(text);

  for (const { line, text: lineText } of iterateLines(text)) {
    if (!/\S/.test(lineText)) continue;
    let value: unknown;
    try {
      value = parseLenientJson(lineText);
    } catch (err) {
      const partial = !endsWithNewline && line === lineCount;
      const message = partial
        ? "incomplete last line (the log is still being written?); skipped"
        : `not valid JSON: ${(err as Error).message}`;
      problems.push({ file: path, line, message: message.slice(0, MAX_MESSAGE_CHARS) });
      continue;
    }
    if (!isPlainObject(value)) {
      problems.push({
        file: path,
        line,
        message: "expected a JSON object (one trainer_log record per line); skipped",
      });
      continue;
    }
    if (!isTrainerLogLine(value)) {
      problems.push({
        file: path,
        line,
        message:
          "not a LLaMA-Factory trainer_log line (no 'current_steps' and 'total_steps'); skipped",
      });
      continue;
    }
    const step = parseStepValue(value.current_steps);
    if (step === null) {
      problems.push({
        file: path,
        line,
        message: `invalid 'current_steps' ${JSON.stringify(value.current_steps)?.slice(0, 40)}; skipped`,
      });
      continue;
    }
    identityLine ??= lineText.trim();
    const where = { file: path, line };
    const from = metrics.length;
    collectMetrics(value, step, NOT_METRICS, where, metrics, problems);
    for (const [source, key] of DURATIONS) {
      const raw = value[source];
      if (raw === null || raw === undefined || raw === "") continue;
      const seconds = parseDurationS(raw);
      if (seconds === null)
        problems.push({
          ...where,
          message: `'${source}' at step ${step}: not a duration: ${JSON.stringify(raw).slice(0, 60)}; skipped`,
        });
      else metrics.push({ key, step, value: seconds });
    }
    repeats.add(step, metrics.slice(from));
    const total = parseStepValue(value.total_steps);
    if (total !== null) totalSteps = total > 0 ? total : null;
    if (lastStep === null || step >= lastStep) {
      lastStep = step;
      reachedTotal = total !== null && total > 0 && step >= total;
    }
  }

  if (identityLine === null) {
    const first = problems[0];
    throw new TrainingImportError(
      path,
      `${path}: not a LLaMA-Factory trainer_log.jsonl: no valid line${first ? ` (line ${first.line}: ${first.message})` : " (the file is empty)"}`,
    );
  }
  return {
    parsed: {
      path,
      contentHash: contentHashOf(text),
      format: "llamafactory-trainer-log",
      identity: `llamafactory-trainer-log\n${identityLine}`,
      metrics,
      lastStep,
      totalSteps,
      finished: reachedTotal,
      repeatedSteps: repeats.summary(),
      startedAtMs: null,
      endedAtMs: null,
      config: { tool: "llamafactory", ...(totalSteps !== null ? { total_steps: totalSteps } : {}) },
    },
    problems,
  };
}

/** The LLaMA-Factory `trainer_log.jsonl` format module. */
export const llamaFactoryTrainerLog: TrainingFormatModule = {
  format: "llamafactory-trainer-log",
  tool: "LLaMA-Factory trainer_log.jsonl",
  recognises: isTrainerLogLine,
  parse,
};
