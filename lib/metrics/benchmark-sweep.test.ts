import { describe, expect, it } from "vitest";

import type { BenchmarkPointView } from "../view-models";
import {
  decodeAtPeakNote,
  decodeTokPerS,
  groupSeries,
  headline,
  isFailedPoint,
  plotData,
  sweepPointLabel,
  sweepScale,
  sweepTickLabel,
  sweepTicks,
  sweepX,
  varyingConfigKeys,
} from "./benchmark-sweep";
import { benchmarkPoint } from "./testing";

function pt(over: Partial<BenchmarkPointView>): BenchmarkPointView {
  return benchmarkPoint({ requestThroughput: 1, totalTokPerS: 200, ...over });
}

describe("failed points and decode speed", () => {
  it("treats completed === 0 as failed, and only that", () => {
    expect(isFailedPoint({ completed: 0 })).toBe(true);
    expect(isFailedPoint({ completed: null })).toBe(false);
    expect(isFailedPoint({ completed: 3 })).toBe(false);
  });
  it("derives per-request tok/s from median TPOT only when it is positive and finite", () => {
    expect(decodeTokPerS({ tpotMsMedian: 40 })).toBe(25);
    expect(decodeTokPerS({ tpotMsMedian: 0 })).toBeNull();
    expect(decodeTokPerS({ tpotMsMedian: null })).toBeNull();
    expect(decodeTokPerS({ tpotMsMedian: Number.NaN })).toBeNull();
  });
});

describe("sweep axis", () => {
  it("uses concurrency when any point has one", () => {
    const s = sweepScale([pt({ concurrency: 1 }), pt({ requestRate: 4 })]);
    expect(s).toEqual({ kind: "concurrency", unboundedX: null });
    expect(sweepPointLabel(32, s)).toBe("C=32");
  });
  it("uses the request rate otherwise and puts an unbounded rate one log2 step right of the highest", () => {
    const pts = [
      pt({ requestRate: 10 }),
      pt({ requestRate: 30 }),
      pt({ requestRateUnbounded: true }),
    ];
    const s = sweepScale(pts);
    expect(s).toEqual({ kind: "requestRate", unboundedX: 60 });
    expect(pts.map((p) => sweepX(p, s))).toEqual([10, 30, 60]);
    expect(sweepTickLabel(60, s)).toBe("max");
    expect(sweepPointLabel(60, s)).toBe("max rate");
    expect(sweepPointLabel(0.5, s)).toBe("0.5 req/s");
  });
  it("places a lone unbounded rate at 1", () => {
    expect(sweepScale([pt({ requestRateUnbounded: true })]).unboundedX).toBe(1);
  });
  it("cannot place zero or missing levels on a log axis", () => {
    const s = sweepScale([pt({ concurrency: 0 })]);
    expect(sweepX(pt({ concurrency: 0 }), s)).toBeNull();
  });
  it("ticks at the sweep's own levels, or powers of two when there are many", () => {
    const s = { kind: "concurrency" as const, unboundedX: null };
    expect(sweepTicks([1, 2, 4, 100, 4], s)).toEqual([1, 2, 4, 100]);
    const many = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(sweepTicks(many, s)).toEqual([1, 2, 4, 8, 16, 32]);
  });
});

describe("plotData and headline", () => {
  it("never plots a failed point, and drops non-finite values from lines", () => {
    const s = { kind: "concurrency" as const, unboundedX: null };
    const data = plotData(
      [
        pt({ concurrency: 4, outputTokPerS: 90 }),
        pt({ concurrency: 1, outputTokPerS: 26.5 }),
        pt({ concurrency: 8, completed: 0, outputTokPerS: 0 }),
        pt({ concurrency: 2, outputTokPerS: Number.NaN }),
      ],
      s,
    );
    expect(data.map((d) => [d.x, d.outputTokPerS])).toEqual([
      [1, 26.5],
      [2, null],
      [4, 90],
    ]);
  });
  it("finds single-request and peak throughput, ignoring failed and NaN points", () => {
    const pts = [
      pt({ concurrency: 1, outputTokPerS: 26.5, tpotMsMedian: 37.7 }),
      pt({ concurrency: 32, outputTokPerS: 577.8, tpotMsMedian: 50, acceptLength: 3.1 }),
      pt({ concurrency: 64, outputTokPerS: Number.POSITIVE_INFINITY }),
      pt({ concurrency: 128, completed: 0, outputTokPerS: 9999 }),
    ];
    const h = headline(pts, sweepScale(pts));
    expect(h.lowest).toMatchObject({ value: 26.5, x: 1 });
    expect(h.peak).toMatchObject({ value: 577.8, x: 32 });
    expect(h.decodeAtPeak).toBe(20);
    expect(h.accept).toEqual({ min: 3.1, max: 3.1 });
    expect(h.failedCount).toBe(1);
    expect(h.okCount).toBe(3);
  });
  it("has no figures when every point failed", () => {
    const pts = [pt({ concurrency: 1, completed: 0, outputTokPerS: 0 })];
    expect(headline(pts, sweepScale(pts))).toMatchObject({
      lowest: null,
      peak: null,
      failedCount: 1,
    });
  });
});

describe("groupSeries", () => {
  it("keeps one unlabelled series when nothing varies", () => {
    const g = groupSeries([pt({ concurrency: 1 }), pt({ concurrency: 2 })]);
    expect(g).toHaveLength(1);
    expect(g[0]?.label).toBe("");
  });
  it("splits by input/output length and labels only what differs", () => {
    const g = groupSeries([
      pt({ inputLen: 30000 }),
      pt({ inputLen: 60000 }),
      pt({ inputLen: 30000 }),
    ]);
    expect(g.map((x) => [x.label, x.points.length])).toEqual([
      ["30,000 in / 1,000 out", 2],
      ["60,000 in / 1,000 out", 1],
    ]);
  });
  it("splits by dataset, but not by per-point measured mean lengths", () => {
    const g = groupSeries([
      pt({ dataset: "random", inputLen: 1024, outputLen: 1024 }),
      pt({ dataset: "random", inputLen: 1024, outputLen: 1024 }),
      pt({ dataset: "sharegpt", inputLen: 224, outputLen: 189 }),
      pt({ dataset: "sharegpt", inputLen: 225, outputLen: 192 }),
    ]);
    expect(g.map((x) => [x.label, x.points.length])).toEqual([
      ["random · 1,024 in / 1,024 out", 2],
      ["sharegpt · lengths vary", 2],
    ]);
  });
  it("splits by config facts that vary between rows (vLLM --metadata)", () => {
    const config = {
      metadata: { deployment: ["base", "kvcache"], gpu: "4xL40S" },
      sourceFiles: ["a", "b"],
    };
    expect(varyingConfigKeys(config)).toEqual(["deployment"]);
    const g = groupSeries(
      [
        pt({ raw: { deployment: "base" } }),
        pt({ raw: { deployment: "kvcache" } }),
        pt({ raw: { deployment: "base" } }),
      ],
      config,
    );
    expect(g.map((x) => [x.label, x.points.length])).toEqual([
      ["deployment: base", 2],
      ["deployment: kvcache", 1],
    ]);
  });
});

describe("a measured TPOT of 0 ms (issue 19)", () => {
  it("says 0 ms, not 'not measured'", () => {
    const scale = { kind: "concurrency" as const, unboundedX: null };
    const zero = headline([pt({ concurrency: 1, outputTokPerS: 50, tpotMsMedian: 0 })], scale);
    expect(decodeAtPeakNote(zero, "none")).toBe("median TPOT 0 ms");
    const missing = headline(
      [pt({ concurrency: 1, outputTokPerS: 50, tpotMsMedian: null })],
      scale,
    );
    expect(decodeAtPeakNote(missing, "none")).toBe("TPOT not measured");
    const measured = headline([pt({ concurrency: 1, outputTokPerS: 50, tpotMsMedian: 40 })], scale);
    expect(decodeAtPeakNote(measured, "none")).toBe("1000 / median TPOT");
    expect(decodeAtPeakNote(headline([], scale), "no points yet")).toBe("no points yet");
  });
});
