import { describe, expect, test } from "vitest";

import { benchmarkPoint } from "../protocol/frames";
import { BenchmarkImportError, importBenchmarkFiles, importFiles } from "./index";
import { expectValidFrames, fixture, onlyRun, pointsOf } from "./testing";

// `pitwall import --scenario long-context`: every point of the imported benchmark runs carries the
// scenario; without the option the frames are exactly what they were before it existed.

const LLAMA = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);
const VLLM = fixture("vllm-bench-serve", "nerdalert_2025-05_benchmark_serving_results.jsonl");

describe("scenario option", () => {
  test("sets the scenario of every point, of any format; keys and run key stay the same", () => {
    for (const file of [LLAMA, VLLM]) {
      const plain = onlyRun(importBenchmarkFiles([file]));
      const long = onlyRun(importBenchmarkFiles([file], { scenario: "long-context" }));
      expectValidFrames(long.frames);
      expect(pointsOf(plain).every((p) => p.scenario === "throughput")).toBe(true);
      expect(pointsOf(long).map((p) => p.scenario)).toEqual(
        pointsOf(plain).map(() => "long-context"),
      );
      // The protocol parses them as long-context points (the schema's default is throughput).
      expect(pointsOf(long).map((p) => benchmarkPoint.parse(p).scenario)).toEqual(
        pointsOf(plain).map(() => "long-context"),
      );
      expect(long.runKey).toBe(plain.runKey);
      expect(pointsOf(long).map((p) => p.key)).toEqual(pointsOf(plain).map((p) => p.key));
      // Everything but the scenario is unchanged, field order included.
      expect(pointsOf(long).map((p) => ({ ...p, scenario: "throughput" }))).toEqual(
        pointsOf(plain),
      );
      expect(pointsOf(long).map((p) => Object.keys(p))).toEqual(
        pointsOf(plain).map((p) => Object.keys(p)),
      );
    }
  });

  test("an explicit throughput scenario gives byte-identical frames to no option", () => {
    expect(JSON.stringify(importBenchmarkFiles([LLAMA], { scenario: "throughput" }))).toBe(
      JSON.stringify(importBenchmarkFiles([LLAMA])),
    );
  });

  test("importFiles passes it to benchmark files only", () => {
    const { benchmarkRuns } = importFiles([LLAMA], { scenario: "long-context" });
    expect(benchmarkRuns).toHaveLength(1);
    expect(pointsOf(benchmarkRuns[0]!).every((p) => p.scenario === "long-context")).toBe(true);
  });

  test("an unknown scenario is refused before anything is built", () => {
    expect(() => importBenchmarkFiles([LLAMA], { scenario: "prefill" as never })).toThrow(
      BenchmarkImportError,
    );
    expect(() => importBenchmarkFiles([LLAMA], { scenario: "prefill" as never })).toThrow(
      /invalid scenario "prefill": expected throughput or long-context/,
    );
  });
});
