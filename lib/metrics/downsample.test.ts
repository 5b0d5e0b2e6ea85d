import { describe, expect, test } from "vitest";

import { minMaxDownsample, type XYPoint } from "./downsample";

const xy = (pairs: Array<[number, number]>): XYPoint[] => pairs.map(([x, y]) => ({ x, y }));
// x = 0..7; with 2 buckets over [0, 7] the first holds x 0..3, the second x 4..7
const EIGHT = xy([
  [0, 1],
  [1, 5],
  [2, 2],
  [3, 8],
  [4, 3],
  [5, 3],
  [6, 0],
  [7, 4],
]);

describe("minMaxDownsample", () => {
  test("maxPoints must be an integer ≥ 2", () => {
    for (const m of [1, 0, -4, 2.5, Number.NaN])
      expect(() => minMaxDownsample(EIGHT, m)).toThrow(RangeError);
  });

  test("empty input", () => {
    expect(minMaxDownsample([], 10)).toEqual({ points: [], total: 0 });
  });

  test("at most maxPoints: all points, sorted by x", () => {
    const r = minMaxDownsample(
      xy([
        [3, 30],
        [1, 10],
        [2, 20],
      ]),
      3,
    );
    expect(r).toEqual({
      points: xy([
        [1, 10],
        [2, 20],
        [3, 30],
      ]),
      total: 3,
    });
  });

  test("keeps the min-y and max-y point of each equal-width bucket, in x order", () => {
    // bucket 0 (x 0..3): min (0,1), max (3,8); bucket 1 (x 4..7): min (6,0), max (7,4)
    expect(minMaxDownsample(EIGHT, 4)).toEqual({
      points: xy([
        [0, 1],
        [3, 8],
        [6, 0],
        [7, 4],
      ]),
      total: 8,
    });
  });

  test("a max before the min in a bucket stays before it", () => {
    const r = minMaxDownsample(
      xy([
        [0, 9],
        [1, 5],
        [2, 0],
        [3, 4],
        [4, 4],
        [5, 4],
      ]),
      4,
    );
    // buckets over [0, 5]: x 0..2 → max (0,9), min (2,0); x 3..5 flat at 4 → one point (3,4)
    expect(r.points).toEqual(
      xy([
        [0, 9],
        [2, 0],
        [3, 4],
      ]),
    );
  });

  test("out-of-order input gives the same result", () => {
    const shuffled = [
      EIGHT[5]!,
      EIGHT[2]!,
      EIGHT[7]!,
      EIGHT[0]!,
      EIGHT[4]!,
      EIGHT[1]!,
      EIGHT[6]!,
      EIGHT[3]!,
    ];
    expect(minMaxDownsample(shuffled, 4)).toEqual(minMaxDownsample(EIGHT, 4));
  });

  test("odd maxPoints uses ⌊maxPoints/2⌋ buckets, never more than maxPoints points", () => {
    expect(minMaxDownsample(EIGHT, 5).points).toEqual(
      xy([
        [0, 1],
        [3, 8],
        [6, 0],
        [7, 4],
      ]),
    );
  });

  test("a single spike in a flat series never vanishes; flat buckets yield one point", () => {
    const pts = Array.from({ length: 1000 }, (_, x) => ({ x, y: x === 537 ? 100 : 0 }));
    // 5 buckets over [0, 999]: x 0..199, 200..399, 400..599, 600..799, 800..999
    const r = minMaxDownsample(pts, 10);
    expect(r.total).toBe(1000);
    expect(r.points).toEqual(
      xy([
        [0, 0],
        [200, 0],
        [400, 0],
        [537, 100],
        [600, 0],
        [800, 0],
      ]),
    );
  });

  test("non-finite y values are always kept as their own points and take no part in min/max", () => {
    const pts = [
      ...EIGHT,
      ...xy([
        [2.5, Number.NaN],
        [5, Number.POSITIVE_INFINITY],
        [6.5, Number.NEGATIVE_INFINITY],
      ]),
    ];
    const r = minMaxDownsample(pts, 4);
    expect(r.total).toBe(11);
    expect(r.points).toEqual(
      xy([
        [0, 1],
        [2.5, Number.NaN],
        [3, 8],
        [5, Number.POSITIVE_INFINITY],
        [6, 0],
        [6.5, Number.NEGATIVE_INFINITY],
        [7, 4],
      ]),
    );
  });

  test("a non-finite y outside the finite x range does not widen the buckets", () => {
    const r = minMaxDownsample([...EIGHT, { x: 100, y: Number.NaN }], 4);
    expect(r.points).toEqual(
      xy([
        [0, 1],
        [3, 8],
        [6, 0],
        [7, 4],
        [100, Number.NaN],
      ]),
    );
  });

  test("the budget counts finite points only: few finite points and many NaN are returned whole", () => {
    const pts = xy([
      [0, 1],
      [1, Number.NaN],
      [2, 2],
      [3, Number.NaN],
      [4, Number.NaN],
      [5, 3],
      [6, Number.NaN],
      [7, Number.NaN],
    ]);
    expect(minMaxDownsample(pts, 4)).toEqual({ points: pts, total: 8 });
  });

  test("points without a finite x are dropped but counted in total", () => {
    const r = minMaxDownsample(
      xy([
        [Number.NaN, 1],
        [1, 1],
        [Number.POSITIVE_INFINITY, 2],
      ]),
      10,
    );
    expect(r).toEqual({ points: xy([[1, 1]]), total: 3 });
  });

  test("all points at one x: one bucket with its min and max", () => {
    const r = minMaxDownsample(
      xy([
        [1, 3],
        [1, 1],
        [1, 4],
        [1, 1],
        [1, 5],
      ]),
      2,
    );
    expect(r.points).toEqual(
      xy([
        [1, 1],
        [1, 5],
      ]),
    );
  });

  test("does not reorder the caller's array", () => {
    const input = xy([
      [2, 0],
      [1, 0],
      [0, 0],
    ]);
    minMaxDownsample(input, 2);
    expect(input.map((p) => p.x)).toEqual([2, 1, 0]);
  });

  test("a long noisy series: at most maxPoints points, sorted, global min and max kept", () => {
    let seed = 12345;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pts = Array.from({ length: 10_000 }, (_, x) => ({ x: x * 1000, y: rand() }));
    pts[4321] = { x: 4_321_000, y: -50 };
    pts[8765] = { x: 8_765_000, y: 50 };
    const r = minMaxDownsample(pts, 100);
    expect(r.total).toBe(10_000);
    expect(r.points.length).toBeLessThanOrEqual(100);
    expect(r.points.length).toBeGreaterThan(90);
    expect(r.points.map((p) => p.x)).toEqual([...r.points.map((p) => p.x)].sort((a, b) => a - b));
    expect(r.points).toContainEqual({ x: 4_321_000, y: -50 });
    expect(r.points).toContainEqual({ x: 8_765_000, y: 50 });
  });
});
