import { describe, expect, it } from "vitest";

import type { BenchmarkPointView } from "../view-models";
import { headline, sweepScale } from "./benchmark-sweep";
import {
  contextAxis,
  contextAxisTitle,
  formatContextLength,
  isLongContextPoint,
  longContextSeries,
  pointTally,
  splitScenarios,
} from "./long-context";
import { benchmarkPoint } from "./testing";

function pt(over: Partial<BenchmarkPointView>): BenchmarkPointView {
  return benchmarkPoint({
    scenario: "long-context",
    concurrency: 1,
    inputLen: 30_000,
    completed: 8,
    outputTokPerS: null,
    ...over,
  });
}

describe("scenarios", () => {
  it("recognises long-context points by scenario only", () => {
    expect(isLongContextPoint({ scenario: "long-context" })).toBe(true);
    expect(isLongContextPoint({ scenario: "throughput" })).toBe(false);
  });
  it("splits a run's points, keeping their order", () => {
    const a = pt({ scenario: "throughput", concurrency: 1 });
    const b = pt({});
    const c = pt({ scenario: "throughput", concurrency: 2 });
    expect(splitScenarios([a, b, c])).toEqual({ sweep: [a, c], longContext: [b] });
  });
});

describe("pointTally", () => {
  it("counts every point of the table, so 'Points' agrees with a table of 8 sweep + 3 long-context points", () => {
    const sweep = Array.from({ length: 8 }, (_, i) =>
      pt({ scenario: "throughput", concurrency: 2 ** i, outputTokPerS: 100 + i }),
    );
    const lc = [
      pt({ inputLen: 30_000 }),
      pt({ inputLen: 60_000 }),
      pt({ inputLen: 100_000, completed: 0 }),
    ];
    expect(pointTally([...sweep, ...lc])).toEqual({ ok: 10, failed: 1, longContext: 3 });
    // The sweep headline alone only knows its 8 points: the tile must use the tally.
    expect(headline(sweep, sweepScale(sweep)).okCount).toBe(8);
  });
});

describe("longContextSeries", () => {
  it("gives TTFT, decode tok/s (1000 / median TPOT) and output tok/s per context length, sorted", () => {
    const s = longContextSeries([
      pt({
        inputLen: 100_000,
        ttftMsMedian: 18_400,
        ttftMsP99: 21_000,
        tpotMsMedian: 31.25,
        outputTokPerS: 26.1,
      }),
      pt({
        inputLen: 30_000,
        ttftMsMedian: 4_200,
        ttftMsP99: null,
        tpotMsMedian: 25,
        outputTokPerS: 35.6,
      }),
      pt({
        inputLen: 60_000,
        ttftMsMedian: 9_500,
        ttftMsP99: 11_000,
        tpotMsMedian: 28,
        outputTokPerS: 31,
      }),
      pt({ scenario: "throughput", inputLen: 1000, tpotMsMedian: 10 }),
    ]);
    expect(s).toHaveLength(1);
    expect(s[0]!.label).toBe("");
    expect(s[0]!.concurrency).toBe(1);
    // 1000 / 25 = 40; 1000 / 28 = 35.714…; 1000 / 31.25 = 32.
    expect(
      s[0]!.data.map((d) => [d.x, d.ttftMsMedian, d.ttftMsP99, d.decodeTokPerS, d.outputTokPerS]),
    ).toEqual([
      [30_000, 4_200, null, 40, 35.6],
      [60_000, 9_500, 11_000, 1000 / 28, 31],
      [100_000, 18_400, 21_000, 32, 26.1],
    ]);
  });

  it("makes one series per concurrency, labelled by it", () => {
    const s = longContextSeries([
      pt({ concurrency: 1, inputLen: 30_000, tpotMsMedian: 20 }),
      pt({ concurrency: 4, inputLen: 30_000, tpotMsMedian: 40 }),
      pt({ concurrency: 1, inputLen: 60_000, tpotMsMedian: 25 }),
      pt({ concurrency: 4, inputLen: 60_000, tpotMsMedian: 50 }),
    ]);
    expect(s.map((x) => [x.label, x.data.map((d) => [d.x, d.decodeTokPerS])])).toEqual([
      [
        "C=1",
        [
          [30_000, 50],
          [60_000, 40],
        ],
      ],
      [
        "C=4",
        [
          [30_000, 25],
          [60_000, 20],
        ],
      ],
    ]);
  });

  it("splits by output length only when one context length has several", () => {
    const together = longContextSeries([
      pt({ inputLen: 30_000, outputLen: 1000 }),
      pt({ inputLen: 60_000, outputLen: 998 }),
    ]);
    expect(together.map((x) => x.label)).toEqual([""]);
    const split = longContextSeries([
      pt({ inputLen: 30_000, outputLen: 256 }),
      pt({ inputLen: 30_000, outputLen: 4096 }),
      pt({ inputLen: 60_000, outputLen: 256 }),
    ]);
    expect(split.map((x) => [x.label, x.data.length])).toEqual([
      ["256 out", 2],
      ["4,096 out", 1],
    ]);
  });

  it("splits by per-row config facts", () => {
    const config = { metadata: { deployment: ["tp8", "ep8"] } };
    const s = longContextSeries(
      [pt({ raw: { deployment: "tp8" } }), pt({ raw: { deployment: "ep8" }, inputLen: 60_000 })],
      config,
    );
    expect(s.map((x) => x.label)).toEqual(["deployment: tp8", "deployment: ep8"]);
  });

  it("never plots failed points or points without an input length, and counts them", () => {
    const s = longContextSeries([
      pt({ inputLen: 30_000, tpotMsMedian: 25 }),
      pt({ inputLen: 100_000, completed: 0, tpotMsMedian: null }),
      pt({ inputLen: null, tpotMsMedian: 30 }),
      pt({ inputLen: 60_000, tpotMsMedian: Number.NaN, ttftMsMedian: Number.POSITIVE_INFINITY }),
    ]);
    expect(s).toHaveLength(1);
    expect(s[0]!.data.map((d) => [d.x, d.decodeTokPerS, d.ttftMsMedian])).toEqual([
      [30_000, 40, null],
      [60_000, null, null],
    ]);
    expect(s[0]!.failedCount).toBe(1);
    expect(s[0]!.unplacedCount).toBe(1);
    expect(s[0]!.points).toHaveLength(4);
  });
});

describe("context-length axis", () => {
  it("formats lengths in K tokens, binary sizes as people say them", () => {
    expect(
      [30_000, 60_000, 100_000, 131_072, 32_768, 1_500, 512, 12_345].map(formatContextLength),
    ).toEqual(["30K", "60K", "100K", "128K", "32K", "1.5K", "512", "12K"]);
  });

  it("is linear and fits the data (not from 0) with ticks at the measured lengths when they span less than a decade", () => {
    const a = contextAxis([30_000, 100_000, 60_000, 30_000]);
    expect(a.kind).toBe("linear");
    expect(a.ticks).toEqual([30_000, 60_000, 100_000]);
    expect(a.domain).toEqual([26_500, 103_500]);
    expect(a.ticks.map(a.tickLabel)).toEqual(["30K", "60K", "100K"]);
    expect(contextAxisTitle(a)).toBe("Context length (input tokens)");
  });

  it("is log2 from a tenfold span on", () => {
    const a = contextAxis([4096, 32_768, 131_072]);
    expect(a.kind).toBe("log2");
    expect(a.ticks).toEqual([12, 15, 17]);
    expect(a.domain).toEqual([12, 17]);
    expect(a.position(65_536)).toBe(16);
    expect(a.ticks.map(a.tickLabel)).toEqual(["4K", "32K", "128K"]);
    expect(contextAxisTitle(a)).toBe("Context length (input tokens, log₂)");
  });

  it("uses round ticks when there are many lengths", () => {
    const a = contextAxis(Array.from({ length: 12 }, (_, i) => 10_000 + i * 5_000));
    expect(a.kind).toBe("linear");
    expect(a.ticks).toEqual([20_000, 40_000, 60_000]);
    expect(a.domain).toEqual([7_250, 67_750]);
  });
});
