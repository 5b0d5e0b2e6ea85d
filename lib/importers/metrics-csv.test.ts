import { describe, expect, test } from "vitest";

import type { ClientFrameInput } from "../protocol/frames";
import {
  detectImportFormat,
  detectTrainingFormat,
  importFiles,
  importTrainingFiles,
  isMetricsCsv,
  type ImportedTrainingRun,
} from "./index";
import { expectValidFrames, fixture, testdata } from "./testing";

// testdata/metrics-csv/metrics.csv: a training script's own metric file (csv.writer): a train
// table every 10 steps (step,loss,lr,grad_norm,timestamp in unix seconds, steps 10..200), a blank
// line, then an eval table every 50 steps (step,eval_loss,eval_accuracy).
const CSV = testdata("metrics-csv/metrics.csv");

function series(run: ImportedTrainingRun, key: string): Array<[number | string, number]> {
  return run.frames.flatMap((f) =>
    f.type === "run.metrics"
      ? f.points
          .filter((p) => p.key === key)
          .map((p): [number | string, number] => [p.step, p.value as number])
      : [],
  );
}

function frameOf<T extends ClientFrameInput["type"]>(
  run: ImportedTrainingRun,
  type: T,
): Extract<ClientFrameInput, { type: T }> | undefined {
  return run.frames.find((f): f is Extract<ClientFrameInput, { type: T }> => f.type === type);
}

describe("CSV metric tables", () => {
  test("two tables separated by a blank line → one training run; wall-clock column gives start and end", () => {
    expect(isMetricsCsv(CSV.text)).toBe(true);
    expect(detectTrainingFormat(CSV.text)).toBe("metrics-csv");
    expect(detectImportFormat(CSV.text)).toEqual({ kind: "training", format: "metrics-csv" });
    const result = importTrainingFiles([CSV]);
    expect(result.problems).toEqual([]);
    expect(result.runs).toHaveLength(1);
    const run = result.runs[0] as ImportedTrainingRun;
    expectValidFrames(run.frames);
    expect(run).toMatchObject({
      format: "metrics-csv",
      name: "metrics-csv",
      lastStep: 200,
      totalSteps: null,
      finished: false,
      endStatus: "ended",
      pointCount: 20 * 3 + 4 * 2,
    });
    expect(series(run, "loss").slice(0, 2)).toEqual([
      [10, 2.3581],
      [20, 2.2254],
    ]);
    expect(series(run, "lr")[0]).toEqual([10, 4.875e-5]);
    expect(series(run, "eval_accuracy")).toEqual([
      [50, 0.45],
      [100, 0.5],
      [150, 0.55],
      [200, 0.6],
    ]);
    expect(series(run, "timestamp")).toEqual([]);
    expect(run.repeatedSteps.steps).toBe(0);
    expect(frameOf(run, "run.start")).toMatchObject({
      kind: "training",
      startedAt: (1764583200 + 120) * 1000,
      config: { format: "metrics-csv", tool: "csv", sourceFiles: ["metrics.csv"] },
    });
    expect(frameOf(run, "run.end")).toMatchObject({
      status: "ended",
      endedAt: (1764583200 + 2400) * 1000,
    });
    // importFiles routes it to the training importer
    expect(importFiles([CSV]).trainingRuns.map((r) => r.runKey)).toEqual([run.runKey]);
    // deterministic
    expect(importTrainingFiles([CSV])).toEqual(result);
  });

  test("a one-table `step,loss` file; blanks skipped, nan kept, bad cells and steps are problems; repeats counted", () => {
    const text =
      [
        "step,loss,acc",
        "1,2.5,",
        "2,nan,0.1",
        "3,abc,0.2",
        "x,1.0,0.3",
        "3,1.9,0.2",
        "3,1.8,0.2",
      ].join("\n") + "\n";
    const result = importTrainingFiles([{ path: "runs/a/loss.csv", text }]);
    expect(result.problems).toEqual([
      {
        file: "runs/a/loss.csv",
        line: 4,
        message: `'loss' at step 3: not a number: "abc"; skipped`,
      },
      { file: "runs/a/loss.csv", line: 5, message: `invalid step "x"; row skipped` },
    ]);
    const run = result.runs[0] as ImportedTrainingRun;
    expect(series(run, "loss")).toEqual([
      [1, 2.5],
      [2, Number.NaN],
      [3, 1.8],
    ]);
    expect(series(run, "acc").map(([s]) => s)).toEqual([2, 3]);
    expect(run.name).toBe("a");
    // step 3 with loss+acc twice (lines 6, 7); line 4's acc-only record has other keys
    expect(run.repeatedSteps).toEqual({ steps: 1, differing: 1, maxTimes: 2 });
  });

  test("TensorBoard's Wall time,Step,Value export names the value after the file", () => {
    const text = "Wall time,Step,Value\n1764583200.5,100,0.91\n1764583260.25,200,0.73\n";
    const run = importTrainingFiles([{ path: "train_loss.csv", text }])
      .runs[0] as ImportedTrainingRun;
    expect(series(run, "train_loss")).toEqual([
      [100, 0.91],
      [200, 0.73],
    ]);
    expect(frameOf(run, "run.start")).toMatchObject({ startedAt: 1764583200500 });
  });

  test("CSV without a step column, or JSON files, are not metric tables", () => {
    expect(isMetricsCsv("a,b\n1,2\n")).toBe(false);
    expect(isMetricsCsv("step,loss\n")).toBe(false);
    expect(isMetricsCsv('{"step": 1, "loss": 2}\n')).toBe(false);
    expect(isMetricsCsv("step\n1\n")).toBe(false);
    const sglang = fixture(
      "sglang-bench-serving",
      "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
    );
    expect(isMetricsCsv(sglang.text)).toBe(false);
    expect(detectImportFormat(sglang.text)).toEqual({
      kind: "benchmark",
      format: "sglang-bench-serving",
    });
  });
});
