import { describe, expect, it } from "vitest";

import { histogramQuantile } from "./quantile";
import { SGLANG_TTFT_BOUNDS_S } from "./testing";

// Cumulative TTFT buckets of the recorded SGLang exposition (test/fixtures/prometheus-metrics).
const FIXTURE_COUNTS = [
  0, 0, 0, 0, 1, 3, 6, 6, 6, 6, 6, 27, 140, 314, 941, 1330, 1970, 2326, 2417, 2513, 11008,
];
const fixtureBuckets = [...SGLANG_TTFT_BOUNDS_S, Infinity].map((le, i) => ({
  le,
  count: FIXTURE_COUNTS[i]!,
}));

describe("histogramQuantile", () => {
  it("interpolates linearly inside the bucket holding the rank (hand computation)", () => {
    // p20 of 11008: rank 2201.6 lies in (15, 20] holding 2326 - 1970 = 356 observations,
    // 231.6 of them below the rank: 15 + 5 · 231.6 / 356.
    expect(histogramQuantile(0.2, fixtureBuckets)).toBeCloseTo(15 + (5 * 231.6) / 356, 9);
    // The first bucket interpolates from 0.
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 10 },
        { le: Infinity, count: 10 },
      ]),
    ).toBeCloseTo(0.5, 12);
  });

  it("returns the highest finite bound when the rank falls in the +Inf bucket", () => {
    expect(histogramQuantile(0.99, fixtureBuckets)).toBe(30);
  });

  it("is NaN without observations or without a +Inf bucket, whatever the bucket order", () => {
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 0 },
        { le: Infinity, count: 0 },
      ]),
    ).toBeNaN();
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 4 },
        { le: 2, count: 8 },
      ]),
    ).toBeNaN();
    expect(histogramQuantile(0.5, [...fixtureBuckets].reverse())).toBe(30);
  });
});
