import { parseLenientJson, stringifyJson } from "../protocol/json";
import {
  isPlainObject,
  topLevelArrayElementLines,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import { parseNumberLike, setOwn } from "./source-values";
import {
  collectMetrics,
  contentHashOf,
  parseStepValue,
  TrainingImportError,
  type ParsedTrainingLog,
  type TrainingFormatModule,
  type TrainingMetric,
} from "./training-common";
import { RepeatedSteps } from "./training-repeats";

/**
 * Hugging Face Transformers `trainer_state.json`, written by `Trainer` into every
 * `checkpoint-<N>/` folder (and by `trainer.save_state()` into the output folder at the end) as
 * `json.dumps(dataclasses.asdict(TrainerState), indent=2, sort_keys=True)`, so non-finite numbers
 * are bare `NaN`/`Infinity` tokens. Modelled on the writers of Transformers 4.3x–4.5x:
 * - top level: `global_step`, `max_steps`, `num_train_epochs`, `train_batch_size`,
 *   `logging_steps`/`eval_steps`/`save_steps`, `epoch`, `total_flos`, `best_metric`,
 *   `best_model_checkpoint`, `is_hyper_param_search`, `trial_name`, `trial_params`,
 *   `is_local_process_zero`/`is_world_process_zero`; newer releases add `best_global_step`,
 *   `num_input_tokens_seen` and `stateful_callbacks`.
 * - `log_history`: one object per `Trainer.log` call, each with `step` (the global step):
 *   training `{loss, grad_norm (4.38+), learning_rate, epoch, step}` (+ `num_input_tokens_seen`),
 *   evaluation `{eval_loss, eval_runtime, eval_samples_per_second, eval_steps_per_second, eval_<metric>…, epoch, step}`,
 *   and once at the end `{train_runtime, train_samples_per_second, train_steps_per_second,
 *   total_flos, train_loss, epoch, step}`. TRL trainers add their own keys (`rewards/chosen`…).
 *
 * Mapping:
 * - Every numeric value of a `log_history` entry except `step` is a metric point at that entry's
 *   `step`, under the Trainer's own key (`loss`, `learning_rate`, `grad_norm`, `epoch`,
 *   `eval_loss`, `train_runtime`…). Numeric strings are read as numbers, null is skipped (never 0),
 *   nested objects/booleans are skipped; a non-numeric string is a problem. An entry without a valid
 *   `step` is a problem (reported at the line where the entry starts).
 * - `best_metric` (when set) is a metric point at `global_step`: one value per snapshot, so
 *   importing several checkpoints shows how the best value evolved.
 * - Config: `train_batch_size`, `max_steps`, `num_train_epochs`, `logging_steps`, `eval_steps`,
 *   `save_steps`, and for hyperparameter searches `trial_name`/`trial_params` (values that do not
 *   change while a run grows, so re-importing a later checkpoint does not restart the run).
 * - Progress: done = max(`global_step`, last logged step), total = `max_steps` (when > 0).
 * - Finished: an entry with `train_runtime` (the Trainer logs it once, when `train()` returns,
 *   also after early stopping: a finished training, so `succeeded`), or `global_step` ≥
 *   `max_steps`; otherwise the run ends `ended` at its last step. No wall-clock times.
 * - The same step logged again with the same keys (a resumed run) is counted (training-repeats.ts).
 * - Identity (run key): the first `log_history` entry plus `train_batch_size`, `logging_steps` and
 *   `trial_name`; a state with an empty `log_history` is identified by its whole content.
 */

/** Keys of a `log_history` entry that are not metrics. */
const NOT_METRICS: ReadonlySet<string> = new Set(["step"]);

/** Top-level hyperparameters copied into the run config (they cannot change while a run grows). */
const CONFIG_KEYS = [
  "train_batch_size",
  "max_steps",
  "num_train_epochs",
  "logging_steps",
  "eval_steps",
  "save_steps",
] as const;

/** True for a parsed `trainer_state.json` document: an object with a `log_history` array and `global_step`. */
export function isTrainerState(value: unknown): value is JsonObject & { log_history: unknown[] } {
  return (
    isPlainObject(value) && Array.isArray(value.log_history) && Object.hasOwn(value, "global_step")
  );
}

/** Parses one `trainer_state.json` text; see the module comment for the mapping. */
function parse(
  path: string,
  text: string,
): { parsed: ParsedTrainingLog; problems: ImportProblem[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let doc: unknown;
  try {
    doc = parseLenientJson(body);
  } catch (err) {
    throw new TrainingImportError(
      path,
      `${path}: not a Hugging Face trainer_state.json (not valid JSON: ${(err as Error).message})`,
    );
  }
  if (!isTrainerState(doc)) {
    throw new TrainingImportError(
      path,
      `${path}: not a Hugging Face trainer_state.json (no 'log_history' array and 'global_step')`,
    );
  }
  const problems: ImportProblem[] = [];
  const entryLines = topLevelArrayElementLines(body, "log_history");
  const lineOf = (i: number) =>
    entryLines.length === doc.log_history.length ? (entryLines[i] as number) : 1;

  const metrics: TrainingMetric[] = [];
  const repeats = new RepeatedSteps();
  let lastLogged: number | null = null;
  let sawTrainRuntime = false;
  for (const [i, entry] of doc.log_history.entries()) {
    const where = { file: path, line: lineOf(i) };
    if (!isPlainObject(entry)) {
      problems.push({ ...where, message: `log_history[${i}] is not an object; skipped` });
      continue;
    }
    const step = parseStepValue(entry.step);
    if (step === null) {
      problems.push({
        ...where,
        message: `log_history[${i}] has no valid 'step' (got ${stringifyJson(entry.step ?? null).slice(0, 40)}); skipped`,
      });
      continue;
    }
    const from = metrics.length;
    collectMetrics(entry, step, NOT_METRICS, where, metrics, problems);
    repeats.add(step, metrics.slice(from));
    lastLogged = Math.max(lastLogged ?? 0, step);
    if (parseNumberLike(entry.train_runtime) !== null) sawTrainRuntime = true;
  }

  const globalStep = parseStepValue(doc.global_step);
  const maxSteps = parseStepValue(doc.max_steps);
  const totalSteps = maxSteps !== null && maxSteps > 0 ? maxSteps : null;
  const lastStep = globalStep === null ? lastLogged : Math.max(globalStep, lastLogged ?? 0);

  const bestMetric = parseNumberLike(doc.best_metric);
  if (bestMetric !== null && globalStep !== null)
    metrics.push({ key: "best_metric", step: globalStep, value: bestMetric });

  const config: JsonObject = { tool: "transformers-trainer" };
  for (const k of CONFIG_KEYS) {
    const v = doc[k];
    if (v !== null && v !== undefined) setOwn(config, k, parseNumberLike(v) ?? v);
  }
  if (doc.is_hyper_param_search === true) config.is_hyper_param_search = true;
  if (doc.trial_name !== null && doc.trial_name !== undefined) config.trial_name = doc.trial_name;
  if (isPlainObject(doc.trial_params)) config.trial_params = doc.trial_params;

  const first = doc.log_history[0];
  const identity =
    first === undefined
      ? `hf-trainer-state\ncontent:${contentHashOf(text)}`
      : [
          "hf-trainer-state",
          stringifyJson(first),
          stringifyJson(doc.train_batch_size ?? null),
          stringifyJson(doc.logging_steps ?? null),
          stringifyJson(doc.trial_name ?? null),
        ].join("\n");

  return {
    parsed: {
      path,
      contentHash: contentHashOf(text),
      format: "hf-trainer-state",
      identity,
      metrics,
      lastStep,
      totalSteps,
      finished:
        sawTrainRuntime || (totalSteps !== null && globalStep !== null && globalStep >= totalSteps),
      repeatedSteps: repeats.summary(),
      startedAtMs: null,
      endedAtMs: null,
      config,
    },
    problems: problems.sort((a, b) => a.line - b.line),
  };
}

/** The Hugging Face `trainer_state.json` format module. */
export const hfTrainerState: TrainingFormatModule = {
  format: "hf-trainer-state",
  tool: "Hugging Face Transformers trainer_state.json",
  recognises: isTrainerState,
  parse,
};
