import { describe, expect, test } from "vitest";

import { logYAxis, niceYAxis } from "./sweep-chart-parts";

describe("logYAxis", () => {
  test("93 ms and 9.9 s both get their own decades instead of 93 ms sitting on the floor", () => {
    expect(logYAxis([93, 120, 9_900])).toEqual({
      domain: [10, 10_000],
      ticks: [10, 100, 1000, 10_000],
    });
    // The linear axis puts 93 ms under 1 % of its height.
    expect(93 / niceYAxis([93, 9_900]).domain[1]).toBeLessThan(0.01);
  });
  test("at most two decades get 2× and 5× ticks; zero, negative and non-finite values are ignored; nothing positive is null", () => {
    expect(logYAxis([12, 0, -1, Number.NaN, 80])).toEqual({
      domain: [10, 100],
      ticks: [10, 20, 50, 100],
    });
    expect(logYAxis([0, null, undefined])).toBeNull();
  });
});

describe("tradeoffPoints", () => {
  test("one point per level with both speeds, in sweep order", async () => {
    const { tradeoffPoints } = await import("./speed-tradeoff-chart");
    const d = (x: number, outputTokPerS: number | null, decodeTokPerS: number | null) => ({
      x,
      outputTokPerS,
      decodeTokPerS,
      point: {} as never,
    });
    expect(
      tradeoffPoints([d(1, 40, 40), d(2, null, 38), d(4, 150, 37.5), d(8, 280, null)]).map((p) => [
        p.x,
        p.perRequestTokPerS,
        p.outputTokPerS,
      ]),
    ).toEqual([
      [1, 40, 40],
      [4, 37.5, 150],
    ]);
  });
});
