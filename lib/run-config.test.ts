import { describe, expect, it } from "vitest";

import { configDiff, configEntries, engineLabel, flattenConfig } from "./run-config";

describe("configEntries", () => {
  it("puts known keys first and merges engine with its version", () => {
    const entries = configEntries({
      gpu: "2x A6000",
      flags: ["--mem-fraction-static 0.88"],
      outputLen: 1000,
      speculativeAlgorithm: "NEXTN",
      tp: 2,
      engineVersion: "0.5.11",
      engine: "sglang",
      model: "Qwen/Qwen3.6-27B",
      dataset: "random",
      empty: null,
    });
    expect(entries.map((e) => e.key)).toEqual([
      "model",
      "engine",
      "tp",
      "speculativeAlgorithm",
      "flags",
      "dataset",
      "outputLen",
      "gpu",
    ]);
    expect(entries[1]).toMatchObject({ label: "Engine", value: "sglang 0.5.11" });
    expect(entries[2]?.label).toBe("TP");
  });
  it("flattens nested objects into dotted keys", () => {
    expect(flattenConfig({ metadata: { gpu: "L40S", x: { y: 1 } }, a: [1, 2] })).toEqual([
      ["metadata.gpu", "L40S"],
      ["metadata.x.y", 1],
      ["a", [1, 2]],
    ]);
  });
  it("keeps a version without engine", () => {
    expect(configEntries({ engineVersion: "0.11" }).map((e) => e.key)).toEqual(["engineVersion"]);
    expect(engineLabel(null, null)).toBeNull();
    expect(engineLabel("vllm", null)).toBe("vllm");
  });
});

describe("configDiff", () => {
  it("marks keys whose values differ, including keys only one run has", () => {
    const rows = configDiff([
      { model: "m", tp: 2, flags: ["--a"], spec: "NEXTN" },
      { model: "m", tp: 4, flags: ["--a"] },
    ]);
    expect(rows.map((r) => [r.key, r.differs])).toEqual([
      ["model", false],
      ["tp", true],
      ["spec", true],
      ["flags", false],
    ]);
    expect(rows.find((r) => r.key === "spec")?.values).toEqual(["NEXTN", undefined]);
  });
});
