import { describe, expect, test } from "vitest";

import {
  DEFAULT_RANGE,
  parseTimeRange,
  resolveTimeRange,
  timeRangeParams,
  timeRangeSearch,
  timeRangeWords,
} from "./time-range";

describe("time range", () => {
  test("presets and custom spans round-trip through the URL", () => {
    expect(parseTimeRange({ range: "6h" })).toEqual({ kind: "preset", preset: "6h" });
    expect(timeRangeSearch({ kind: "preset", preset: "6h" })).toBe("range=6h");
    expect(timeRangeSearch(DEFAULT_RANGE)).toBe("");
    const custom = parseTimeRange({ from: "1000", to: "61000" });
    expect(custom).toEqual({ kind: "custom", fromMs: 1000, toMs: 61000 });
    expect(
      parseTimeRange(Object.fromEntries(new URLSearchParams(timeRangeSearch(custom)))),
    ).toEqual(custom);
    expect(timeRangeWords({ kind: "preset", preset: "7d" })).toBe("last 7 d");
  });

  test("bounds: a preset ends now, a custom span is fixed", () => {
    expect(resolveTimeRange({ kind: "preset", preset: "15m" }, 1_000_000_000)).toEqual({
      fromMs: 1_000_000_000 - 900_000,
      toMs: 1_000_000_000,
    });
    expect(resolveTimeRange({ kind: "custom", fromMs: 5, toMs: 9 }, 1e12)).toEqual({
      fromMs: 5,
      toMs: 9,
    });
  });

  test("bad parameters: the API gets named issues, pages fall back to the last hour", () => {
    expect(timeRangeParams.safeParse({ range: "2h" }).success).toBe(false);
    expect(timeRangeParams.safeParse({ from: "10" }).error?.issues[0]?.message).toBe(
      "from and to go together (epoch ms)",
    );
    expect(timeRangeParams.safeParse({ from: "10", to: "5" }).error?.issues[0]?.message).toContain(
      "to must be after from",
    );
    expect(timeRangeParams.safeParse({ from: "0", to: String(91 * 86_400_000) }).success).toBe(
      false,
    );
    expect(parseTimeRange({ range: "forever" })).toEqual(DEFAULT_RANGE);
    expect(parseTimeRange({ from: "x", to: "y" })).toEqual(DEFAULT_RANGE);
  });
});
