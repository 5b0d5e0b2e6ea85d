import { describe, expect, test } from "vitest";

import type { ClientFrameInput, MetricPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import {
  detectTrainingFormat,
  importTrainingFiles,
  TrainingImportError,
  type ImportedTrainingRun,
} from "./index";
import { topLevelArrayElementLines } from "./source-text";
import { expectValidFrames } from "./testing";

// A finished run as Transformers 4.4x writes output_dir/trainer_state.json (trainer.save_state()):
// json.dumps(asdict(state), indent=2, sort_keys=True), so Infinity is a bare token. fp16 overflow
// at step 20 gave an infinite grad norm.
const FINAL = `{
  "best_global_step": 20,
  "best_metric": 1.7342,
  "best_model_checkpoint": "out/qwen3-drafter/checkpoint-20",
  "epoch": 0.0969,
  "eval_steps": 20,
  "global_step": 30,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [
    {
      "epoch": 0.0323,
      "grad_norm": 3.1416,
      "learning_rate": 5e-05,
      "loss": 2.3456,
      "step": 10
    },
    {
      "epoch": 0.0646,
      "grad_norm": Infinity,
      "learning_rate": 3.3333e-05,
      "loss": 1.9876,
      "step": 20
    },
    {
      "epoch": 0.0646,
      "eval_loss": 1.7342,
      "eval_runtime": 12.3456,
      "eval_samples_per_second": 81.003,
      "eval_steps_per_second": 10.125,
      "step": 20
    },
    {
      "epoch": 0.0969,
      "grad_norm": 0.8125,
      "learning_rate": 1.6667e-05,
      "loss": 1.5432,
      "step": 30
    },
    {
      "epoch": 0.0969,
      "step": 30,
      "total_flos": 1.234567e+16,
      "train_loss": 1.9588,
      "train_runtime": 123.4567,
      "train_samples_per_second": 19.44,
      "train_steps_per_second": 0.243
    }
  ],
  "logging_steps": 10,
  "max_steps": 30,
  "num_input_tokens_seen": 0,
  "num_train_epochs": 1,
  "save_steps": 20,
  "stateful_callbacks": {
    "TrainerControl": {
      "args": {
        "should_epoch_stop": false,
        "should_evaluate": false,
        "should_log": false,
        "should_save": true,
        "should_training_stop": true
      },
      "attributes": {}
    }
  },
  "total_flos": 1.234567e+16,
  "train_batch_size": 8,
  "trial_name": null,
  "trial_params": null
}
`;

/** The checkpoint-20 snapshot of the same run: the first three log entries, global_step 20. */
const CHECKPOINT_20 = FINAL.replace(
  /,\n {4}\{\n {6}"epoch": 0\.0969,\n {6}"grad_norm"[\s\S]*?\n {4}\}\n {2}\],/,
  "\n  ],",
)
  .replace('"global_step": 30', '"global_step": 20')
  .replace('"epoch": 0.0969,\n  "eval_steps"', '"epoch": 0.0646,\n  "eval_steps"');

const FINAL_FILE = { path: "out/qwen3-drafter/trainer_state.json", text: FINAL };
const CKPT_FILE = {
  path: "out/qwen3-drafter/checkpoint-20/trainer_state.json",
  text: CHECKPOINT_20,
};

function onlyRun(result: { runs: ImportedTrainingRun[] }): ImportedTrainingRun {
  expect(result.runs).toHaveLength(1);
  return result.runs[0] as ImportedTrainingRun;
}

function pointsOf(run: ImportedTrainingRun): MetricPointInput[] {
  return run.frames.flatMap((f) => (f.type === "run.metrics" ? f.points : []));
}

function series(run: ImportedTrainingRun, key: string): Array<[number | string, number | string]> {
  return pointsOf(run)
    .filter((p) => p.key === key)
    .map((p) => [p.step, p.value as number]);
}

function frameOf<T extends ClientFrameInput["type"]>(
  run: ImportedTrainingRun,
  type: T,
): Extract<ClientFrameInput, { type: T }> | undefined {
  return run.frames.find((f) => f.type === type) as
    Extract<ClientFrameInput, { type: T }> | undefined;
}

/** Python-style `json.dumps(obj, indent=2, sort_keys=True)` with bare NaN/Infinity. */
function pyState(obj: Record<string, unknown>): string {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `${stringifyJson(sortKeys(obj), 2).replace(/"(-?Infinity|NaN)"/g, "$1")}\n`;
}

describe("Hugging Face trainer_state.json", () => {
  test("the fixture snapshot is what the test thinks it is", () => {
    expect(CHECKPOINT_20).toContain('"global_step": 20');
    expect(CHECKPOINT_20).not.toContain("train_runtime");
    expect(CHECKPOINT_20).not.toContain('"step": 30');
    expect(detectTrainingFormat(FINAL)).toBe("hf-trainer-state");
    expect(detectTrainingFormat(CHECKPOINT_20)).toBe("hf-trainer-state");
  });

  test("a finished run: every logged value at its step, progress 30/30, run.end succeeded", () => {
    const result = importTrainingFiles([FINAL_FILE]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.format).toBe("hf-trainer-state");
    expect(run.name).toBe("qwen3-drafter");
    expect(run.runKey).toMatch(/^import:[0-9a-f]{32}$/);
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.metrics",
      "run.progress",
      "run.end",
    ]);

    // 4 + 4 + 5 + 4 + 6 values in the entries; epoch is logged twice at steps 20 and 30 (kept
    // once each); plus best_metric at global_step.
    expect(run.pointCount).toBe(22);
    expect(series(run, "loss")).toEqual([
      [10, 2.3456],
      [20, 1.9876],
      [30, 1.5432],
    ]);
    expect(series(run, "learning_rate")).toEqual([
      [10, 5e-5],
      [20, 3.3333e-5],
      [30, 1.6667e-5],
    ]);
    // The bare Infinity token survives as a number, and goes on the wire as "Infinity".
    expect(series(run, "grad_norm")).toEqual([
      [10, 3.1416],
      [20, Number.POSITIVE_INFINITY],
      [30, 0.8125],
    ]);
    expect(stringifyJson(frameOf(run, "run.metrics"))).toContain(
      '{"key":"grad_norm","step":20,"value":"Infinity"}',
    );
    expect(series(run, "eval_loss")).toEqual([[20, 1.7342]]);
    expect(series(run, "epoch")).toEqual([
      [10, 0.0323],
      [20, 0.0646],
      [30, 0.0969],
    ]);
    expect(series(run, "train_runtime")).toEqual([[30, 123.4567]]);
    expect(series(run, "total_flos")).toEqual([[30, 1.234567e16]]);
    expect(series(run, "best_metric")).toEqual([[30, 1.7342]]);
    expect(pointsOf(run).some((p) => p.key === "step")).toBe(false);

    const start = frameOf(run, "run.start");
    expect(start).toMatchObject({
      kind: "training",
      name: "qwen3-drafter",
      total: 30,
      unit: "steps",
    });
    expect(start?.config).toEqual({
      format: "hf-trainer-state",
      tool: "transformers-trainer",
      train_batch_size: 8,
      max_steps: 30,
      num_train_epochs: 1,
      logging_steps: 10,
      eval_steps: 20,
      save_steps: 20,
      sourceFiles: ["trainer_state.json"],
    });
    expect(frameOf(run, "run.progress")).toMatchObject({
      workerId: "import",
      done: 30,
      total: 30,
      unit: "steps",
    });
    expect(frameOf(run, "run.end")).toMatchObject({ status: "succeeded" });
    expect(run).toMatchObject({ lastStep: 30, totalSteps: 30, finished: true });
  });

  test("a checkpoint snapshot mid-run: the run ends 'ended' (outcome unknown) at its last step", () => {
    const run = onlyRun(importTrainingFiles([CKPT_FILE]));
    expectValidFrames(run.frames);
    expect(run.name).toBe("qwen3-drafter");
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.metrics",
      "run.progress",
      "run.end",
    ]);
    expect(run).toMatchObject({
      lastStep: 20,
      totalSteps: 30,
      finished: false,
      endStatus: "ended",
    });
    expect(frameOf(run, "run.end")).toMatchObject({ status: "ended" });
    expect(frameOf(run, "run.end")).not.toHaveProperty("endedAt"); // the state holds no wall-clock time
    expect(frameOf(run, "run.progress")).toMatchObject({ done: 20, total: 30 });
    expect(series(run, "loss")).toEqual([
      [10, 2.3456],
      [20, 1.9876],
    ]);
  });

  test("snapshots of one training are one run; later snapshots continue it with the same run.start", () => {
    const ckpt = onlyRun(importTrainingFiles([CKPT_FILE]));
    const final = onlyRun(importTrainingFiles([FINAL_FILE]));
    expect(ckpt.runKey).toBe(final.runKey);
    // The run.start does not change as the log grows, so re-importing a later snapshot is no restart.
    expect(ckpt.frames[0]).toEqual(final.frames[0]);
    expect(ckpt.frames[0]?.id).toBe(final.frames[0]?.id);

    // Given together (checkpoint-*/trainer_state.json plus the final one): one merged run.
    const both = onlyRun(importTrainingFiles([FINAL_FILE, CKPT_FILE]));
    expect(both.files).toEqual([CKPT_FILE.path, FINAL_FILE.path]);
    expect(both.pointCount).toBe(final.pointCount + 1); // plus best_metric at step 20 from the checkpoint
    expect(series(both, "best_metric")).toEqual([
      [20, 1.7342],
      [30, 1.7342],
    ]);
    expect(both.finished).toBe(true);
    expect(frameOf(both, "run.progress")).toMatchObject({ done: 30, total: 30 });
  });

  test("global_step == max_steps without a train_runtime entry counts as finished", () => {
    const text = pyState({
      global_step: 20,
      max_steps: 20,
      train_batch_size: 4,
      logging_steps: 10,
      log_history: [
        { epoch: 0.5, loss: 1.5, learning_rate: 1e-5, step: 10 },
        { epoch: 1.0, loss: 1.25, learning_rate: 0, step: 20 },
      ],
    });
    const run = onlyRun(importTrainingFiles([{ path: "checkpoint-20/trainer_state.json", text }]));
    expect(run.finished).toBe(true);
    expect(frameOf(run, "run.end")).toMatchObject({ status: "succeeded" });
    // No folder above the checkpoint folder: the file name.
    expect(run.name).toBe("trainer_state.json");
  });

  test("string numbers are parsed, nulls skipped (never stored as 0), NaN kept, bad entries reported at their line", () => {
    const text = pyState({
      global_step: 30,
      max_steps: 100,
      train_batch_size: 4,
      logging_steps: 10,
      log_history: [
        { epoch: "0.10", loss: "0.00", learning_rate: "5e-05", grad_norm: null, step: 10 },
        { epoch: 0.2, loss: Number.NaN, grad_norm: "nan", step: 20 },
        { epoch: 0.25, eval_loss: null, eval_accuracy: "n/a", step: 25 },
        { epoch: 0.3, loss: 1.0 },
        { epoch: 0.3, loss: 0.9, flags: { fused: true }, is_best: false, step: "30" },
      ],
    });
    const result = importTrainingFiles([{ path: "runs/nan/trainer_state.json", text }]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(series(run, "loss")).toEqual([
      [10, 0],
      [20, Number.NaN],
      [30, 0.9],
    ]);
    expect(series(run, "learning_rate")).toEqual([[10, 5e-5]]);
    expect(series(run, "grad_norm")).toEqual([[20, Number.NaN]]);
    expect(series(run, "epoch")).toEqual([
      [10, 0.1],
      [20, 0.2],
      [25, 0.25],
      [30, 0.3],
    ]);
    expect(
      pointsOf(run).some((p) => p.key === "eval_loss" || p.key === "flags" || p.key === "is_best"),
    ).toBe(false);

    const lines = text.split("\n");
    const lineOfEntry = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
    expect(result.problems).toEqual([
      {
        file: "runs/nan/trainer_state.json",
        line: lineOfEntry('"epoch": 0.25') - 1,
        message: "'eval_accuracy' at step 25: not a number: \"n/a\"; skipped",
      },
      {
        file: "runs/nan/trainer_state.json",
        line: lineOfEntry('"epoch": 0.3') - 1,
        message: "log_history[3] has no valid 'step' (got null); skipped",
      },
    ]);
  });

  test("element lines of the log_history array", () => {
    const text = pyState({
      a: [{ x: 1 }],
      log_history: [{ step: 1, s: '{[\\"' }, { step: 2 }, 3],
      z: { log_history: [{}] },
    });
    const lines = text.split("\n");
    const starts = topLevelArrayElementLines(text, "log_history");
    expect(starts).toHaveLength(3);
    expect(lines[(starts[0] as number) - 1]?.trim()).toBe("{");
    expect(lines[(starts[1] as number) - 1]?.trim()).toBe("{");
    expect(lines[(starts[2] as number) - 1]?.trim()).toBe("3");
    expect(lines[starts[1] as number]?.trim()).toBe('"step": 2');
    expect(topLevelArrayElementLines('{"log_history": []}', "log_history")).toEqual([]);
    expect(topLevelArrayElementLines('{"other": [1]}', "log_history")).toEqual([]);
  });

  test("same input gives identical frames; argument order does not matter", () => {
    const a = importTrainingFiles([FINAL_FILE, CKPT_FILE]);
    const b = importTrainingFiles([CKPT_FILE, FINAL_FILE]);
    expect(stringifyJson(a)).toBe(stringifyJson(b));
    expect(stringifyJson(importTrainingFiles([FINAL_FILE]))).toBe(
      stringifyJson(importTrainingFiles([{ ...FINAL_FILE }])),
    );
  });

  test("a truncated trainer_state.json is a file-level error", () => {
    // Detection sees the first line only as "{", the whole text is not JSON: not recognised at all.
    expect(detectTrainingFormat(FINAL.slice(0, 400))).toBeNull();
    expect(() =>
      importTrainingFiles([{ path: "t/trainer_state.json", text: FINAL.slice(0, 400) }]),
    ).toThrow(/t\/trainer_state\.json: not a recognised training log/);
    expect(() => importTrainingFiles([FINAL_FILE], { maxPointsPerFrame: 0 })).toThrow(
      TrainingImportError,
    );
  });
});
