import { describe, expect, it } from "vitest";

import { MISSING } from "./format";
import {
  formatLatencyIn,
  formatLatencyValue,
  latencyIn,
  metricLatenciesMs,
  pickLatencyUnit,
  pickLatencyUnits,
  pointLatenciesMs,
} from "./latency-unit";

describe("pickLatencyUnit", () => {
  it("keeps ms while the median is under a second", () => {
    expect(pickLatencyUnit([12, 85.7, 93, 400, 9900])).toBe("ms");
    expect(pickLatencyUnit([999.9])).toBe("ms");
  });
  it("switches to s once the median reaches 1000 ms", () => {
    expect(pickLatencyUnit([1000])).toBe("s");
    expect(pickLatencyUnit([20, 1200, 9900])).toBe("s");
    // Even count: the mean of the two middle values (800 and 1200 → 1000).
    expect(pickLatencyUnit([10, 800, 1200, 5000])).toBe("s");
    expect(pickLatencyUnit([10, 800, 1100, 5000])).toBe("ms");
  });
  it("switches to s when the largest value reaches 10,000 ms, whatever the median", () => {
    expect(pickLatencyUnit([40, 60, 90, 30_000])).toBe("s");
    expect(pickLatencyUnit([40, 60, 90, 10_000])).toBe("s");
    expect(pickLatencyUnit([40, 60, 90, 9_999])).toBe("ms");
  });
  it("ignores missing and non-finite values, and defaults to ms", () => {
    expect(pickLatencyUnit([])).toBe("ms");
    expect(pickLatencyUnit([null, undefined, Number.NaN, Number.POSITIVE_INFINITY])).toBe("ms");
    expect(
      pickLatencyUnit([null, 2000, Number.NaN, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]),
    ).toBe("s");
  });
});

describe("latency formatting in one unit", () => {
  it("converts to seconds and back", () => {
    expect(latencyIn(1234, "s")).toBeCloseTo(1.234);
    expect(latencyIn(1234, "ms")).toBe(1234);
    expect(latencyIn(null, "s")).toBeNull();
  });
  it("prints every latency of the page in the chosen unit, small ones included", () => {
    expect(formatLatencyIn(85.7, "ms")).toBe("85.7 ms");
    expect(formatLatencyIn(9900, "ms")).toBe("9,900 ms");
    expect(formatLatencyIn(9900, "s")).toBe("9.90 s");
    expect(formatLatencyIn(85.7, "s")).toBe("0.0857 s");
    expect(formatLatencyIn(0.5, "s")).toBe("5e-4 s");
  });
  it("keeps missing and non-finite values honest", () => {
    expect(formatLatencyIn(null, "s")).toBe(MISSING);
    expect(formatLatencyIn(Number.NaN, "s")).toBe("NaN");
    expect(formatLatencyIn(Number.POSITIVE_INFINITY, "ms")).toBe("∞ ms");
  });
  it("prints bare numbers for cells under a unit header", () => {
    expect(formatLatencyValue(1234, "s")).toBe("1.23");
    expect(formatLatencyValue(1234, "s", 3)).toBe("1.234");
    expect(formatLatencyValue(1234, "ms")).toBe("1,234");
  });
});

describe("pointLatenciesMs", () => {
  it("collects TTFT, TPOT, ITL and E2E of every point, skipping nulls", () => {
    expect(
      pointLatenciesMs([
        { ttftMsMedian: 90, tpotMsMedian: 12, e2eMsP99: null },
        { itlMsMean: 11 },
      ]).sort((a, b) => a - b),
    ).toEqual([11, 12, 90]);
  });
});

describe("one unit per latency metric", () => {
  it("keeps an 18.2 ms TPOT in ms on a long-context page whose TTFTs are seconds", () => {
    const points = [
      {
        ttftMsMedian: 9_900,
        ttftMsP99: 12_000,
        tpotMsMedian: 18.2,
        tpotMsP99: 25,
        e2eMsMedian: 30_000,
      },
      {
        ttftMsMedian: 20_100,
        ttftMsP99: 24_000,
        tpotMsMedian: 19.5,
        tpotMsP99: 27,
        e2eMsMedian: 45_000,
      },
    ];
    expect(pickLatencyUnit(pointLatenciesMs(points))).toBe("s");
    const units = pickLatencyUnits(points);
    expect(units).toEqual({ ttft: "s", tpot: "ms", itl: "ms", e2e: "s" });
    expect(formatLatencyIn(18.2, units.tpot)).toBe("18.2 ms");
    expect(metricLatenciesMs(points, "tpot")).toEqual([18.2, 25, 19.5, 27]);
  });

  it("shows a measured 0 ms as 0 ms, not as missing", () => {
    expect(formatLatencyIn(0, "ms")).toBe("0 ms");
    expect(formatLatencyIn(null, "ms")).toBe("—");
  });
});
