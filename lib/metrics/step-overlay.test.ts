import { expect, test } from "vitest";

import { overlayRows, overlayValues } from "./step-overlay";

const pts = (pairs: Array<[number | string, number]>) => ({
  points: pairs.map(([step, value]) => ({ step, value })),
});

test("rows join two runs by step; a step only one run has carries only that run's fields", () => {
  const rows = overlayRows(
    [
      pts([
        [100, 3],
        [200, 2],
      ]),
      pts([
        [200, 2.5],
        [300, 1.5],
      ]),
    ],
    0,
    false,
  );
  expect(rows.map((r) => r.x)).toEqual([100, 200, 300]);
  expect(rows[0]).toEqual({ x: 100, r0: 3, s0: 3 });
  expect(rows[1]).toEqual({ x: 200, r0: 2, s0: 2, r1: 2.5, s1: 2.5 });
  expect(rows[2]).toEqual({ x: 300, r1: 1.5, s1: 1.5 });
});

test("each run is smoothed over its own points only", () => {
  const rows = overlayRows(
    [
      pts([
        [1, 10],
        [2, 0],
      ]),
      pts([
        [1, 0],
        [2, 10],
      ]),
    ],
    0.5,
    false,
  );
  // run 0: 10, then (2.5 / 0.75) = 3.33; run 1: 0, then (2.5+... ) avg2 = 0*0.5*0.5 + 10*0.5 = 5 → 5/0.75 = 6.67
  expect(rows[1]!.s0).toBeCloseTo(10 / 3, 10);
  expect(rows[1]!.s1).toBeCloseTo(20 / 3, 10);
  expect(rows[1]!.r0).toBe(0);
});

test("log y leaves values ≤ 0 off, and non-finite values are never drawn", () => {
  const rows = overlayRows(
    [
      pts([
        [1, 0],
        [2, Number.NaN],
        [3, 4],
      ]),
    ],
    0,
    true,
  );
  expect(rows.map((r) => [r.r0, r.s0])).toEqual([
    [null, null],
    [null, null],
    [4, 4],
  ]);
  expect(overlayValues(rows)).toEqual([4, 4]);
});

test("64-bit decimal string steps become numbers for plotting", () => {
  const rows = overlayRows([pts([["9007199254740993", 1]])], 0, false);
  expect(rows[0]!.x).toBe(9007199254740992);
});
