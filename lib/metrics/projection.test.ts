import { describe, expect, it } from "vitest";

import {
  bestLevel,
  defaultOutputTokens,
  formatDays,
  formatHours,
  parsePositiveNumber,
  project,
  projectionArithmetic,
  projectionLevels,
} from "./projection";
import { benchmarkPoint } from "./testing";

const pt = benchmarkPoint;

describe("project", () => {
  it("reproduces the design's figure: 100,000 × 1,024 tok at 199.6 tok/s", () => {
    // 100,000 × 1,024 = 102,400,000 tok; ÷ 199.6 = 513,026.05 s; ÷ 3,600 = 142.507 h; ÷ 24 = 5.938 days.
    const p = project(100_000, 1024, 199.6);
    expect(p.totalTokens).toBe(102_400_000);
    expect(p.seconds).toBeCloseTo(513_026.052, 3);
    expect(p.hours).toBeCloseTo(142.5072, 4);
    expect(p.days).toBeCloseTo(5.9378, 5);
    expect(projectionArithmetic(p)).toBe(
      "100,000 × 1,024 tok = 102,400,000 tok ÷ 199.6 tok/s = 513,026 s = 142.5 h = 5.94 days",
    );
  });

  it("shows a fractional mean output length with one decimal", () => {
    // 10 × 512.25 = 5,122.5 tok ÷ 50 tok/s = 102.45 s = 0.02846 h = 0.001186 days.
    expect(projectionArithmetic(project(10, 512.25, 50))).toBe(
      "10 × 512.3 tok = 5,123 tok ÷ 50 tok/s = 102 s = 0.03 h = 0.001 days",
    );
  });

  it("refuses non-positive or non-finite inputs", () => {
    expect(() => project(0, 1000, 10)).toThrow(RangeError);
    expect(() => project(10, Number.NaN, 10)).toThrow(/outputTokPerSample/);
    expect(() => project(10, 1000, Number.POSITIVE_INFINITY)).toThrow(/outputTokPerS/);
  });

  it("formats hours and days", () => {
    expect(formatHours(142.5072)).toBe("142.5 h");
    expect(formatHours(0.5)).toBe("0.50 h");
    expect(formatHours(1234.56)).toBe("1,234.6 h");
    expect(formatDays(1)).toBe("1.00 day");
    expect(formatDays(0.05)).toBe("0.050 days");
  });
});

describe("levels", () => {
  it("lists the successful sweep levels by concurrency and picks the highest output tok/s", () => {
    const levels = projectionLevels([
      pt({ key: "c32", concurrency: 32, outputTokPerS: 577.8 }),
      pt({ key: "c1", concurrency: 1, outputTokPerS: 26.5 }),
      pt({ key: "c64", concurrency: 64, outputTokPerS: 577.3 }),
      pt({ key: "c128", concurrency: 128, completed: 0, outputTokPerS: null }),
      pt({ key: "c2", concurrency: 2, outputTokPerS: Number.NaN }),
      pt({
        key: "lc",
        scenario: "long-context",
        concurrency: 1,
        inputLen: 30_000,
        outputTokPerS: 900,
      }),
    ]);
    expect(levels.map((l) => [l.key, l.label, l.outputTokPerS])).toEqual([
      ["c1", "C=1", 26.5],
      ["c32", "C=32", 577.8],
      ["c64", "C=64", 577.3],
    ]);
    expect(bestLevel(levels)?.key).toBe("c32");
    expect(bestLevel([])).toBeNull();
  });

  it("names the series when a run has several", () => {
    const levels = projectionLevels([
      pt({ concurrency: 2, inputLen: 1024, outputLen: 1024 }),
      pt({ concurrency: 1, inputLen: 1024, outputLen: 1024 }),
      pt({ concurrency: 1, inputLen: 512, outputLen: 256 }),
    ]);
    expect(levels.map((l) => l.label)).toEqual([
      "C=1 · 1,024 in / 1,024 out",
      "C=2 · 1,024 in / 1,024 out",
      "C=1 · 512 in / 256 out",
    ]);
  });

  it("falls back to the long-context levels when the run has no sweep", () => {
    const levels = projectionLevels([
      pt({
        key: "b",
        scenario: "long-context",
        concurrency: 1,
        inputLen: 100_000,
        outputTokPerS: 26,
      }),
      pt({
        key: "a",
        scenario: "long-context",
        concurrency: 1,
        inputLen: 30_000,
        outputTokPerS: 35,
      }),
    ]);
    expect(levels.map((l) => [l.key, l.label])).toEqual([
      ["a", "C=1 · 30K in"],
      ["b", "C=1 · 100K in"],
    ]);
  });
});

describe("defaultOutputTokens", () => {
  it("prefers the completed-request totals of the source rows", () => {
    // (160,347 + 308,712) ÷ (300 + 600) = 469,059 ÷ 900 = 521.17 tok per request.
    const d = defaultOutputTokens([
      pt({ completed: 300, outputLen: 1024, raw: { total_output_tokens: 160_347 } }),
      pt({ completed: 600, outputLen: 1024, raw: { total_output_tokens: 308_712 } }),
      pt({ completed: 0, outputLen: 1024, raw: {} }),
    ]);
    expect(d?.source).toBe("measured");
    expect(d?.tokens).toBeCloseTo(469_059 / 900, 10);
    expect(d?.detail).toBe(
      "measured: 469,059 output tokens ÷ 900 completed requests over 2 points",
    );
  });

  it("uses the output lengths, weighted by completed requests, when a row lacks totals", () => {
    // (1,000 × 100 + 2,000 × 300) ÷ 400 = 1,750.
    const d = defaultOutputTokens([
      pt({ completed: 100, outputLen: 1000, raw: { total_output_tokens: 99_000 } }),
      pt({ completed: 300, outputLen: 2000 }),
    ]);
    expect(d).toEqual({
      tokens: 1750,
      source: "configured",
      detail: "mean output length of 2 points, weighted by completed requests",
    });
    expect(defaultOutputTokens([pt({ outputLen: 1000 })])?.detail).toBe(
      "output length of the 1 point",
    );
  });

  it("reads the long-context points when there is no sweep, and is null when nothing says", () => {
    expect(defaultOutputTokens([pt({ scenario: "long-context", outputLen: 512 })])?.tokens).toBe(
      512,
    );
    expect(defaultOutputTokens([pt({ outputLen: null })])).toBeNull();
    expect(defaultOutputTokens([])).toBeNull();
  });
});

describe("parsePositiveNumber", () => {
  it("accepts what people type", () => {
    expect(
      ["100000", "100,000", "100 000", " 1e5 ", "1_024", "512.5", ".5"].map(parsePositiveNumber),
    ).toEqual([100_000, 100_000, 100_000, 100_000, 1024, 512.5, 0.5]);
  });
  it("refuses the rest", () => {
    expect(["", "0", "-5", "abc", "12abc", "1e", "Infinity"].map(parsePositiveNumber)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
  it("takes up to 10¹² and refuses more (1e308 × 1e308 would overflow to ∞ h)", () => {
    expect(parsePositiveNumber("1e12")).toBe(1e12);
    expect(["1000000000001", "1e13", "1e308"].map(parsePositiveNumber)).toEqual([null, null, null]);
  });
});
