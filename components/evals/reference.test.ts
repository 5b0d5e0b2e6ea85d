import { describe, expect, test } from "vitest";

import { baselineUpsertFrame } from "@/lib/protocol";
import type { BaselineView } from "@/lib/view-models/evals";

import {
  baselineCategory,
  baselineDelta,
  baselinesForScope,
  comparableBaselines,
  compareWithBaselines,
  tauScale,
} from "./reference";

let nextId = 1;
function baseline(name: string, value: number, extra: Partial<BaselineView> = {}): BaselineView {
  return {
    id: nextId++,
    name,
    metric: "tau",
    value,
    tolerance: null,
    dataset: null,
    settings: {},
    sourceUrl: null,
    updatedAt: "2026-11-29T00:00:00.000Z",
    ...extra,
  };
}

describe("tauScale", () => {
  test("an absurd baseline or band never stretches the axis; it is reported off-scale instead", () => {
    const ref = baseline("DFlash DDTree-8", 12.4, { tolerance: 0.3 });
    const junk = baseline("junk", 1e308);
    const wideBand = baseline("wide band", 11, { tolerance: 1e300 });
    const s = tauScale([9.5, 10.2, 11.1], [ref, junk, wideBand]);
    expect(s.drawn.map((b) => b.name)).toEqual(["DFlash DDTree-8", "wide band"]);
    expect(s.offScale.map((b) => b.name)).toEqual(["junk"]);
    expect([...s.bandClipped]).toEqual([wideBand.id]);
    // The axis covers the data, the reference line and its band, and the wide band's line only.
    expect(Math.max(...s.axisValues)).toBeCloseTo(12.7, 12);
    expect(Math.min(...s.axisValues)).toBe(9.5);
  });

  test("an early run far below the reference still draws the 12.4 line; no data draws every baseline", () => {
    const ref = baseline("ref", 12.4);
    expect(tauScale([1.2, 1.6], [ref]).drawn).toEqual([ref]);
    expect(tauScale([1.2, 1.6], [baseline("far", 40)]).offScale).toHaveLength(1);
    expect(tauScale([], [ref])).toMatchObject({
      drawn: [ref],
      offScale: [],
      axisValues: [12.4, 12.4],
    });
  });
});

describe("comparableBaselines", () => {
  const general = baseline("general", 12.4);
  const junk = baseline("a junk", 1e9);
  const he = baseline("humaneval ref", 6.2, { dataset: "humaneval" });
  const mbpp = baseline("mbpp ref", 7, { dataset: "mbpp" });
  const all = [general, junk, he, mbpp];

  test("the baselines of the run's datasets, else the dataset-less ones, all of them by name (never the highest value alone)", () => {
    expect(comparableBaselines(all, ["humaneval"]).map((b) => b.name)).toEqual(["humaneval ref"]);
    expect(comparableBaselines(all, ["humaneval", "mbpp"]).map((b) => b.name)).toEqual([
      "humaneval ref",
      "mbpp ref",
    ]);
    expect(comparableBaselines(all, ["gsm8k"]).map((b) => b.name)).toEqual(["a junk", "general"]);
    expect(comparableBaselines(all, []).map((b) => b.name)).toEqual(["a junk", "general"]);
    expect(comparableBaselines([he], [])).toEqual([]);
  });

  test("delta is signed, with the tolerance band deciding 'within'", () => {
    expect(baselineDelta(12.8, general)).toEqual({ delta: "+0.40", where: "above" });
    expect(baselineDelta(11.5, general)).toEqual({ delta: "−0.90", where: "below" });
    expect(baselineDelta(12.2, baseline("tol", 12.4, { tolerance: 0.3 }))).toEqual({
      delta: "−0.20",
      where: "within ± 0.30",
    });
    // A junk baseline's delta stays readable.
    expect(baselineDelta(12.4, baseline("junk", 1e9)).delta).toBe("−1.00e+9");
  });
});

describe("compareWithBaselines", () => {
  const coding = baseline("DDTree-8 public drafter (coding)", 12.4, {
    tolerance: 0.3,
    settings: { tree: "ddtree-8", category: "coding" },
  });
  const general = baseline("general", 10);
  const byCategory = [
    { category: "chat", tau: 9.1 },
    { category: "coding", tau: 12.6 },
    { category: "math", tau: 11.2 },
  ];

  test("a coding-only reference is compared with the coding τ, never with the all-category τ", () => {
    expect(baselineCategory(coding)).toBe("coding");
    expect(baselineCategory(general)).toBeNull();
    const c = compareWithBaselines([coding, general], 11.29, byCategory);
    expect(c.map((x) => [x.baseline.name, x.tau, x.category])).toEqual([
      ["DDTree-8 public drafter (coding)", 12.6, "coding"],
      ["general", 11.29, null],
    ]);
    // The all-category line would have read "−1.11" against 12.4; the coding τ is +0.20, within the band.
    expect(baselineDelta(c[0]!.tau, coding)).toEqual({ delta: "+0.20", where: "within ± 0.30" });
  });

  test("with a category in scope the shown τ is that category's; other categories' baselines and unscored categories drop out", () => {
    expect(
      compareWithBaselines([coding, general], 12.6, [], "coding").map((x) => [
        x.baseline.name,
        x.tau,
        x.category,
      ]),
    ).toEqual([
      ["DDTree-8 public drafter (coding)", 12.6, null],
      ["general", 12.6, null],
    ]);
    expect(compareWithBaselines([coding], 11.2, [], "math")).toEqual([]);
    expect(compareWithBaselines([coding], 11.29, [{ category: "math", tau: 11.2 }])).toEqual([]);
  });
});

describe("baseline.upsert limits (frame and API body share them)", () => {
  const frame = {
    v: 1,
    id: "f1",
    type: "baseline.upsert",
    name: "ref",
    metric: "tau",
    value: 12.4,
  } as const;

  test("value and tolerance are bounded to ±1e9; sourceUrl must be http(s); the name is trimmed", () => {
    expect(baselineUpsertFrame.safeParse({ ...frame, value: 1e308 }).success).toBe(false);
    expect(baselineUpsertFrame.safeParse({ ...frame, value: -1e10 }).success).toBe(false);
    expect(baselineUpsertFrame.safeParse({ ...frame, value: 1e9, tolerance: 1e9 }).success).toBe(
      true,
    );
    expect(baselineUpsertFrame.safeParse({ ...frame, tolerance: 1e300 }).success).toBe(false);
    expect(
      baselineUpsertFrame.safeParse({ ...frame, value: Number.POSITIVE_INFINITY }).success,
    ).toBe(false);
    expect(
      baselineUpsertFrame.safeParse({ ...frame, sourceUrl: "javascript:alert(1)" }).success,
    ).toBe(false);
    expect(baselineUpsertFrame.safeParse({ ...frame, sourceUrl: "data:text/html,x" }).success).toBe(
      false,
    );
    expect(
      baselineUpsertFrame.safeParse({ ...frame, sourceUrl: "HTTPS://example.com/paper" }).success,
    ).toBe(true);
    expect(baselineUpsertFrame.parse({ ...frame, name: "  DFlash ref  " }).name).toBe("DFlash ref");
    expect(baselineUpsertFrame.safeParse({ ...frame, name: "   " }).success).toBe(false);
  });
});

describe("baselinesForScope (issue 25: a coding-only 12.4 drawn against the all-prompts τ line)", () => {
  const coding = baseline("DDTree-8 (coding)", 12.4, { settings: { category: "coding" } });
  const general = baseline("EAGLE-3", 6.1);
  test("an all-prompts chart draws only baselines without a category", () => {
    const { matching, otherCategory } = baselinesForScope([coding, general], null);
    expect(matching.map((b) => b.name)).toEqual(["EAGLE-3"]);
    expect(otherCategory.map((b) => b.name)).toEqual(["DDTree-8 (coding)"]);
  });
  test("a chart filtered to the category draws its own baseline too", () => {
    expect(baselinesForScope([coding, general], "coding").matching.map((b) => b.name)).toEqual([
      "DDTree-8 (coding)",
      "EAGLE-3",
    ]);
    expect(baselinesForScope([coding], "math").otherCategory).toHaveLength(1);
  });
});
