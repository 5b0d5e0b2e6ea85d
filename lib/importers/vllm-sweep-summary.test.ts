import { describe, expect, test } from "vitest";

import { groupSeries } from "../metrics/benchmark-sweep";
import { stringifyJson } from "../protocol/json";
import type { BenchmarkPointView } from "../view-models";
import { detectFormat, detectImportFormat, importBenchmarkFiles, importFiles } from "./index";
import { at, endOf, expectValidFrames, onlyRun, pointsOf, startOf, testdata } from "./testing";
import { sweepParameters } from "./vllm-sweep-summary";

// testdata/vllm-sweep: two combination folders of a `vllm bench sweep serve` experiment (serve
// params max_num_seqs 64 and 128 with max_num_batched_tokens 8192, bench param max_concurrency 32,
// --num-runs 3), each with the summary.json the sweep writes: a JSON array (indent 4) of three
// `vllm bench serve --save-result` objects with run_number and the overrides appended.
const SEQS_64 = testdata(
  "vllm-sweep/SERVE--max_num_seqs=64-max_num_batched_tokens=8192-BENCH--max_concurrency=32/summary.json",
);
const SEQS_128 = testdata(
  "vllm-sweep/SERVE--max_num_seqs=128-max_num_batched_tokens=8192-BENCH--max_concurrency=32/summary.json",
);

describe("vllm bench sweep summary.json", () => {
  test("a JSON array of runs → one run, a point per element on the line where it starts, swept parameters in the config", () => {
    expect(detectFormat(SEQS_64.text)).toBe("vllm-bench-serve");
    expect(detectImportFormat(SEQS_64.text)).toEqual({
      kind: "benchmark",
      format: "vllm-bench-serve",
    });
    const result = importBenchmarkFiles([SEQS_64]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.name).toBe(
      "SERVE--max_num_seqs=64-max_num_batched_tokens=8192-BENCH--max_concurrency=32",
    );
    expect(run.pointCount).toBe(3);
    const points = pointsOf(run);
    expect(points.map((p) => p.ord)).toEqual([2, 44, 86]);
    expect(at(points, 0)).toMatchObject({
      concurrency: 32,
      requestRateUnbounded: true,
      completed: 320,
      outputTokPerS: 1308.7,
      ttftMsMean: 210.4,
      tpotMsMean: 22.91,
      e2eMsMean: 6063.2,
    });
    expect(points.map((p) => p.raw?.run_number)).toEqual([0, 1, 2]);
    expect(at(points, 2).raw).toMatchObject({ max_num_seqs: 64, max_num_batched_tokens: 8192 });
    const config = startOf(run).config as Record<string, unknown>;
    expect(config).toMatchObject({
      benchmarkTool: "vllm bench sweep serve",
      model: "Qwen/Qwen3-8B",
      sweep: { max_num_seqs: 64, max_num_batched_tokens: 8192 },
    });
    // the overrides are not --metadata
    expect(config).not.toHaveProperty("metadata");
    expect(endOf(run)).toMatchObject({ status: "succeeded" });
    // re-import: byte-identical frames
    expect(stringifyJson(importBenchmarkFiles([SEQS_64]))).toBe(stringifyJson(result));
  });

  test("two combinations made one run: the swept value differs, so the run page and compare charts split series by it", () => {
    expect(
      importFiles([SEQS_128, SEQS_64], { name: "Qwen3-8B max_num_seqs sweep" }).benchmarkRuns,
    ).toHaveLength(1);
    const run = onlyRun(
      importBenchmarkFiles([SEQS_128, SEQS_64], { name: "Qwen3-8B max_num_seqs sweep" }),
    );
    expectValidFrames(run.frames);
    expect(run.pointCount).toBe(6);
    const config = startOf(run).config as Record<string, unknown>;
    expect(config.sweep).toEqual({ max_num_seqs: [64, 128], max_num_batched_tokens: 8192 });
    const views = pointsOf(run).map(
      (p) => ({ ...p, raw: p.raw ?? {} }) as unknown as BenchmarkPointView,
    );
    const series = groupSeries(views, config);
    expect(series.map((s) => [s.label, s.points.length])).toEqual([
      ["max_num_seqs: 64", 3],
      ["max_num_seqs: 128", 3],
    ]);
  });

  test("sweepParameters: the keys after run_number, without _benchmark_name; null for a plain result", () => {
    expect(
      sweepParameters({
        completed: 1,
        max_concurrency: 8,
        run_number: 0,
        _benchmark_name: "big",
        max_num_seqs: 256,
        enforce_eager: true,
      }),
    ).toEqual({ max_num_seqs: 256, enforce_eager: true });
    expect(sweepParameters({ completed: 1, max_concurrency: 8 })).toBeNull();
    expect(sweepParameters({ completed: 1, run_number: 2 })).toBeNull();
  });

  test("an array element that is no object is a problem; the others import", () => {
    const text = `[\n    1,\n${SEQS_64.text.trim().slice(1, -1).trim().replace(/,\s*$/, "")}\n]`;
    const result = importBenchmarkFiles([{ path: "x/summary.json", text }]);
    expect(result.problems).toEqual([
      {
        file: "x/summary.json",
        line: 2,
        message:
          "element 0 of the JSON array is not an object (one benchmark result per element); skipped",
      },
    ]);
    expect(onlyRun(result).pointCount).toBe(3);
  });
});
