import { describe, expect, test } from "vitest";

import { seriesStepRange } from "./series-step-range";

describe("seriesStepRange", () => {
  test("the ends over every series, from each one's first and last point", () => {
    const series = [
      {
        points: [
          { step: 5, value: 1 },
          { step: 90, value: 2 },
        ],
      },
      { points: [] },
      {
        points: [
          { step: 2, value: NaN },
          { step: "40", value: 1 },
        ],
      },
    ];
    expect(seriesStepRange(series)).toEqual({ lo: 2, hi: 90 });
    expect(seriesStepRange([{ points: [] }])).toBeNull();
  });

  test("200 keys × 1,000 points (more than a spread into Math.min takes) are answered", () => {
    const series = Array.from({ length: 200 }, (_, k) => ({
      points: Array.from({ length: 1_000 }, (_, i) => ({ step: k + i * 10, value: i })),
    }));
    expect(seriesStepRange(series)).toEqual({ lo: 0, hi: 199 + 999 * 10 });
  });
});
