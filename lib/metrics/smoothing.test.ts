import { describe, expect, test } from "vitest";

import { emaSmooth, parseSmoothing } from "./smoothing";

describe("emaSmooth", () => {
  test("weight 0 returns the values", () => {
    expect(emaSmooth([3, 1, 2], 0)).toEqual([3, 1, 2]);
  });

  test("debiased EMA: the first value is kept, later ones pulled towards the average (TensorBoard's formula)", () => {
    const out = emaSmooth([10, 0, 0], 0.5);
    // avg1 = 5, debias 1-0.5 = 0.5 → 10; avg2 = 2.5, debias 0.75 → 3.333…; avg3 = 1.25, debias 0.875 → 1.4286
    expect(out[0]).toBeCloseTo(10, 10);
    expect(out[1]).toBeCloseTo(10 / 3, 10);
    expect(out[2]).toBeCloseTo(1.25 / 0.875, 10);
  });

  test("a constant series stays constant at any weight", () => {
    for (const w of [0.3, 0.9, 0.99])
      for (const v of emaSmooth([2, 2, 2, 2, 2], w)) expect(v).toBeCloseTo(2, 10);
  });

  test("NaN and ±Infinity give null and do not enter the average", () => {
    const out = emaSmooth([4, Number.NaN, Number.POSITIVE_INFINITY, 4], 0.9);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeNull();
    expect(out[3]).toBeCloseTo(4, 10);
  });

  test("weights outside [0, 0.999] are clamped; a non-number weight means no smoothing", () => {
    expect(emaSmooth([1, 5], -1)).toEqual([1, 5]);
    expect(emaSmooth([1, 5], Number.NaN)).toEqual([1, 5]);
    // Clamped to 0.999: two points weigh almost equally after debiasing (≈ their mean, 3), not 5.
    expect(emaSmooth([1, 5], 2)[1]).toBeCloseTo(3, 2);
  });
});

describe("parseSmoothing", () => {
  test("reads a weight in [0, 0.99] and falls back otherwise", () => {
    expect(parseSmoothing("0.8", 0.6)).toBe(0.8);
    expect(parseSmoothing("0", 0.6)).toBe(0);
    expect(parseSmoothing(null, 0.6)).toBe(0.6);
    expect(parseSmoothing("", 0.6)).toBe(0.6);
    expect(parseSmoothing("1", 0.6)).toBe(0.6);
    expect(parseSmoothing("-0.1", 0.6)).toBe(0.6);
    expect(parseSmoothing("abc", 0.6)).toBe(0.6);
  });
});
