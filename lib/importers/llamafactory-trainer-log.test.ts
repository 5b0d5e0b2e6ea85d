import { describe, expect, test } from "vitest";

import type { ClientFrameInput, MetricPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import {
  describeRepeatedSteps,
  detectTrainingFormat,
  importTrainingFiles,
  type ImportedTrainingRun,
} from "./index";
import { expectValidFrames, testdata } from "./testing";

// LLaMA-Factory 0.9 (`llamafactory-cli train`, logging_steps 10, eval_steps 30, max_steps 60), as its
// LogCallback appends to saves/qwen2.5-7b/lora/sft/trainer_log.jsonl: null keys dropped, `lr`,
// throughput/total_tokens because input tokens are counted. Step 30 has a train and an eval line;
// the last line is the Trainer's end-of-training log (train_loss is not a key the callback copies).
const V09 =
  [
    '{"current_steps": 10, "total_steps": 60, "loss": 1.4321, "lr": 4.965903258506806e-05, "epoch": 0.17, "percentage": 16.67, "elapsed_time": "0:00:31", "remaining_time": "0:02:35", "throughput": 2653.9, "total_tokens": 82272}',
    '{"current_steps": 20, "total_steps": 60, "loss": 1.2876, "lr": 4.3973165987233e-05, "epoch": 0.33, "percentage": 33.33, "elapsed_time": "0:01:02", "remaining_time": "0:02:04", "throughput": "1234.56", "total_tokens": 164544}',
    '{"current_steps": 30, "total_steps": 60, "loss": 1.2011, "lr": 3.147047612756302e-05, "epoch": 0.5, "percentage": 50.0, "elapsed_time": "0:01:33", "remaining_time": "0:01:33", "throughput": 2653.14, "total_tokens": 246816}',
    '{"current_steps": 30, "total_steps": 60, "eval_loss": 1.1893, "epoch": 0.5, "percentage": 50.0, "elapsed_time": "0:01:41", "remaining_time": "0:01:41", "throughput": 2443.6, "total_tokens": 246816}',
    '{"current_steps": 40, "total_steps": 60, "loss": 1.1532, "lr": 1.6527036446661396e-05, "epoch": 0.67, "percentage": 66.67, "elapsed_time": "0:02:12", "remaining_time": "0:01:06", "throughput": 2493.21, "total_tokens": 329088}',
    '{"current_steps": 50, "total_steps": 60, "loss": 1.1187, "lr": 4.7889190020622625e-06, "epoch": 0.83, "percentage": 83.33, "elapsed_time": "0:02:43", "remaining_time": "0:00:32", "throughput": 2522.58, "total_tokens": 411360}',
    '{"current_steps": 60, "total_steps": 60, "loss": 1.1044, "lr": 0.0, "epoch": 1.0, "percentage": 100.0, "elapsed_time": "0:03:14", "remaining_time": "0:00:00", "throughput": 2543.59, "total_tokens": 493632}',
    '{"current_steps": 60, "total_steps": 60, "epoch": 1.0, "percentage": 100.0, "elapsed_time": "0:03:15", "remaining_time": "0:00:00", "throughput": 2530.51, "total_tokens": 493632}',
  ].join("\n") + "\n";

// llmtuner (LLaMA-Factory 0.6) on a long run, still training: every key written, null when the
// Trainer did not log it; `learning_rate`; no throughput.
const V06_RUNNING =
  [
    '{"current_steps": 5, "total_steps": 15000, "loss": 2.1043, "eval_loss": null, "predict_loss": null, "reward": null, "learning_rate": 4.9999998629534754e-05, "epoch": 0.0, "percentage": 0.03, "elapsed_time": "0:00:17", "remaining_time": "4 days, 5:06:09"}',
    '{"current_steps": 10, "total_steps": 15000, "loss": null, "eval_loss": null, "predict_loss": null, "reward": null, "learning_rate": 4.999994518138e-05, "epoch": 0.01, "percentage": 0.07, "elapsed_time": "0:00:34", "remaining_time": "1 day, 0:00:01.5"}',
    '{"current_steps": 15, "total_steps": 15000, "loss": NaN, "eval_loss": null, "predict_loss": null, "reward": null, "learning_rate": 4.99998766e-05, "epoch": 0.01, "percentage": 0.1, "elapsed_time": "0:00:51", "remaining_time": "23:59:59"}',
  ].join("\n") + "\n";

const V09_FILE = { path: "saves/qwen2.5-7b/lora/sft/trainer_log.jsonl", text: V09 };

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

describe("LLaMA-Factory trainer_log.jsonl", () => {
  test("0.9 writer, finished run: metrics under the writer's keys, durations in seconds, run.end", () => {
    expect(detectTrainingFormat(V09)).toBe("llamafactory-trainer-log");
    const result = importTrainingFiles([V09_FILE]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.name).toBe("sft");
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.metrics",
      "run.progress",
      "run.end",
    ]);
    expect(run).toMatchObject({
      format: "llamafactory-trainer-log",
      lastStep: 60,
      totalSteps: 60,
      finished: true,
    });

    // Six steps (10..60); keys per step: loss, lr, epoch, elapsedS, remainingS, throughput,
    // total_tokens (7), plus eval_loss at 30.
    expect(run.pointCount).toBe(6 * 7 + 1);
    expect(series(run, "loss")).toEqual([
      [10, 1.4321],
      [20, 1.2876],
      [30, 1.2011],
      [40, 1.1532],
      [50, 1.1187],
      [60, 1.1044],
    ]);
    expect(series(run, "eval_loss")).toEqual([[30, 1.1893]]);
    expect(series(run, "lr")[5]).toEqual([60, 0]);
    // "1234.56" (a string) is read as the number.
    expect(series(run, "throughput")).toEqual([
      [10, 2653.9],
      [20, 1234.56],
      [30, 2443.6],
      [40, 2493.21],
      [50, 2522.58],
      [60, 2530.51],
    ]);
    // Step 30 and 60 have two lines: the later one wins for the keys both carry.
    expect(series(run, "elapsedS")).toEqual([
      [10, 31],
      [20, 62],
      [30, 101],
      [40, 132],
      [50, 163],
      [60, 195],
    ]);
    expect(series(run, "remainingS")).toEqual([
      [10, 155],
      [20, 124],
      [30, 101],
      [40, 66],
      [50, 32],
      [60, 0],
    ]);
    expect(
      pointsOf(run).some((p) =>
        ["percentage", "current_steps", "total_steps", "elapsed_time"].includes(p.key),
      ),
    ).toBe(false);

    expect(frameOf(run, "run.start")).toMatchObject({
      kind: "training",
      name: "sft",
      total: 60,
      unit: "steps",
      config: {
        format: "llamafactory-trainer-log",
        tool: "llamafactory",
        total_steps: 60,
        sourceFiles: ["trainer_log.jsonl"],
      },
    });
    expect(frameOf(run, "run.progress")).toMatchObject({
      workerId: "import",
      done: 60,
      total: 60,
      unit: "steps",
    });
    expect(frameOf(run, "run.end")).toMatchObject({ status: "succeeded" });
  });

  test("llmtuner writer, still running: nulls skipped, learning_rate kept as named, NaN kept, long durations", () => {
    const result = importTrainingFiles([{ path: "output/trainer_log.jsonl", text: V06_RUNNING }]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.name).toBe("output");
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.metrics",
      "run.progress",
      "run.end",
    ]);
    expect(run).toMatchObject({
      lastStep: 15,
      totalSteps: 15000,
      finished: false,
      endStatus: "ended",
    });
    // Step 10 logged loss null: no loss point there (not 0).
    expect(series(run, "loss")).toEqual([
      [5, 2.1043],
      [15, Number.NaN],
    ]);
    expect(stringifyJson(frameOf(run, "run.metrics"))).toContain(
      '{"key":"loss","step":15,"value":"NaN"}',
    );
    expect(series(run, "learning_rate")).toEqual([
      [5, 4.9999998629534754e-5],
      [10, 4.999994518138e-5],
      [15, 4.99998766e-5],
    ]);
    expect(series(run, "remainingS")).toEqual([
      [5, 4 * 86_400 + 5 * 3_600 + 6 * 60 + 9],
      [10, 86_401.5],
      [15, 86_399],
    ]);
    expect(
      pointsOf(run).some((p) => ["eval_loss", "predict_loss", "reward", "lr"].includes(p.key)),
    ).toBe(false);
    // Per step: loss (not at 10), learning_rate, epoch, elapsedS, remainingS.
    expect(run.pointCount).toBe(3 * 4 + 2);
  });

  test("the same step from two writers: one point per (key, step), the later line wins", () => {
    const text = [
      '{"current_steps": 10, "total_steps": 20, "loss": 1.5, "lr": 1e-05, "epoch": 0.5, "percentage": 50.0, "elapsed_time": "0:00:10", "remaining_time": "0:00:10"}',
      '{"current_steps": 10, "total_steps": 20, "loss": 1.5, "lr": 1e-05, "epoch": 0.5, "percentage": 50.0, "elapsed_time": "0:00:11", "remaining_time": "0:00:11"}',
      '{"current_steps": 20, "total_steps": 20, "loss": 1.25, "lr": 0.0, "epoch": 1.0, "percentage": 100.0, "elapsed_time": "0:00:20", "remaining_time": "0:00:00"}',
      // A resumed run re-logs step 20 (elapsed restarts) and its loss is null here: the earlier loss stays.
      '{"current_steps": 20, "total_steps": 20, "loss": null, "lr": 0.0, "epoch": 1.0, "percentage": 100.0, "elapsed_time": "0:00:02", "remaining_time": "0:00:00"}',
    ].join("\n");
    const run = onlyRun(importTrainingFiles([{ path: "dup/trainer_log.jsonl", text }]));
    expectValidFrames(run.frames);
    expect(series(run, "loss")).toEqual([
      [10, 1.5],
      [20, 1.25],
    ]);
    expect(series(run, "elapsedS")).toEqual([
      [10, 11],
      [20, 2],
    ]);
    expect(run.pointCount).toBe(2 * 5);
    const keys = pointsOf(run).map((p) => `${p.key}@${p.step}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(run.finished).toBe(true);
  });

  test("two writers logged the same steps: counted exactly (later values kept); a log cut mid-run ends 'ended'", () => {
    // testdata: a 300-step run cut at step 200; from step 52 on a second node's callback appended
    // every step again to the shared file (149 steps twice, 84 of them with another loss), plus
    // an eval line every 50 steps (other keys at the same step: not a repeat).
    const run = onlyRun(
      importTrainingFiles([testdata("llamafactory-two-writers/trainer_log.jsonl")]),
    );
    expectValidFrames(run.frames);
    expect(run.repeatedSteps).toEqual({ steps: 149, differing: 84, maxTimes: 2 });
    expect(describeRepeatedSteps(run.repeatedSteps)).toBe(
      "149 steps logged twice (84 with different values); later values kept",
    );
    expect(run).toMatchObject({
      lastStep: 200,
      totalSteps: 300,
      finished: false,
      endStatus: "ended",
    });
    expect(frameOf(run, "run.end")).toMatchObject({ status: "ended" });
    expect(series(run, "eval_loss")).toHaveLength(4);
    // one point per (key, step): 200 losses, the second writer's where it differs
    expect(series(run, "loss")).toHaveLength(200);

    // The same file with the repeats removed reports none, and reaching total_steps succeeds.
    const once =
      '{"current_steps": 1, "total_steps": 2, "loss": 1.0}\n{"current_steps": 2, "total_steps": 2, "loss": 0.9}\n';
    const done = onlyRun(importTrainingFiles([{ path: "ok/trainer_log.jsonl", text: once }]));
    expect(done.repeatedSteps).toEqual({ steps: 0, differing: 0, maxTimes: 0 });
    expect(describeRepeatedSteps(done.repeatedSteps)).toBeNull();
    expect(done.endStatus).toBe("succeeded");
  });

  test("bad lines are reported with file and line; the other lines import", () => {
    const lines = V09.trimEnd().split("\n");
    const text = [
      lines[0],
      '{"current_steps": 20, "total_steps": 60, "loss": 1.28',
      "[1, 2]",
      '{"loss": 1.0, "epoch": 0.4}',
      '{"current_steps": -3, "total_steps": 60, "loss": 1.0}',
      '{"current_steps": 30, "total_steps": 60, "loss": "abc", "epoch": 0.5, "elapsed_time": "soon", "remaining_time": ""}',
      "",
      lines[4],
      '{"current_steps": 50, "total_steps": 60, "lo',
    ].join("\n");
    const result = importTrainingFiles([{ path: "bad/trainer_log.jsonl", text }]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(
      result.problems.map((p) => [p.line, p.message.replace(/: Unexpected.*|: Expected.*/, "")]),
    ).toEqual([
      [2, "not valid JSON"],
      [3, "expected a JSON object (one trainer_log record per line); skipped"],
      [4, "not a LLaMA-Factory trainer_log line (no 'current_steps' and 'total_steps'); skipped"],
      [5, "invalid 'current_steps' -3; skipped"],
      [6, "'loss' at step 30: not a number: \"abc\"; skipped"],
      [6, "'elapsed_time' at step 30: not a duration: \"soon\"; skipped"],
      [9, "incomplete last line (the log is still being written?); skipped"],
    ]);
    expect(result.problems.every((p) => p.file === "bad/trainer_log.jsonl")).toBe(true);
    expect(series(run, "loss")).toEqual([
      [10, 1.4321],
      [40, 1.1532],
    ]);
    expect(series(run, "epoch")).toEqual([
      [10, 0.17],
      [30, 0.5],
      [40, 0.67],
    ]);
    expect(run).toMatchObject({ lastStep: 40, finished: false });
  });

  test("a grown log continues the same run: same run.start, earlier metric frames keep their ids", () => {
    const lines = V09.trimEnd().split("\n");
    const early = { path: "sft/trainer_log.jsonl", text: `${lines.slice(0, 5).join("\n")}\n` };
    const opts = { maxPointsPerFrame: 8 };
    const before = onlyRun(importTrainingFiles([early], opts));
    const after = onlyRun(importTrainingFiles([V09_FILE], opts));
    expect(after.runKey).toBe(before.runKey);
    expect(before.finished).toBe(false);
    expect(after.finished).toBe(true);
    const ids = (run: ImportedTrainingRun, type: string) =>
      run.frames.filter((f) => f.type === type).map((f) => f.id);
    // Both are named after their folder (sft), so run.start is identical and applies once.
    expect(before.name).toBe("sft");
    expect(ids(after, "run.start")).toEqual(ids(before, "run.start"));
    const beforeMetrics = ids(before, "run.metrics");
    const afterMetrics = ids(after, "run.metrics");
    expect(beforeMetrics.length).toBeGreaterThan(2);
    // Every full frame of the earlier import is resent unchanged (the server dedupes them).
    expect(afterMetrics.slice(0, beforeMetrics.length - 1)).toEqual(beforeMetrics.slice(0, -1));
    expect(after.frames.every((f) => f.type !== "run.metrics" || f.points.length <= 8)).toBe(true);
  });

  test("same input gives identical frames; a different log is another run", () => {
    const framesOf = (path: string) =>
      stringifyJson(importTrainingFiles([{ path, text: V09 }]).runs.map((r) => r.frames));
    expect(framesOf(V09_FILE.path)).toBe(framesOf("elsewhere/sft/trainer_log.jsonl"));
    expect(framesOf(V09_FILE.path)).toBe(framesOf(V09_FILE.path));
    const other = onlyRun(
      importTrainingFiles([{ path: "o/trainer_log.jsonl", text: V06_RUNNING }]),
    );
    expect(other.runKey).not.toBe(onlyRun(importTrainingFiles([V09_FILE])).runKey);
    // The run key depends on content only: a rename or another name keeps it.
    expect(onlyRun(importTrainingFiles([V09_FILE], { name: "qwen sft" })).runKey).toBe(
      onlyRun(importTrainingFiles([V09_FILE])).runKey,
    );
  });
});
