import { describe, expect, test } from "vitest";

import { alertRuleInput, ruleHolds, type RulePoint, type RuleSpec } from "./rule";

const spec = (s: Partial<RuleSpec>): RuleSpec => ({
  metricKey: "loss",
  condition: "nan",
  threshold: null,
  forSteps: null,
  forSeconds: null,
  ...s,
});
const pts = (values: number[], lastTsMs = 100_000, everyMs = 10_000): RulePoint[] =>
  values.map((value, i) => ({ step: values.length - i, value, tsMs: lastTsMs - i * everyMs })); // newest first

describe("ruleHolds", () => {
  test("steps: the newest N points must all meet the condition, and there must be N", () => {
    const r = spec({ condition: "nan", forSteps: 3 });
    expect(ruleHolds(r, pts([NaN, NaN, NaN, 1]), 0, 0)).toEqual({
      holds: true,
      detail: "loss NaN/Inf for 3 steps (steps 2-4)",
    });
    expect(ruleHolds(r, pts([NaN, NaN, 1, NaN]), 0, 0).holds).toBe(false);
    expect(ruleHolds(r, pts([NaN, NaN]), 0, 0).holds).toBe(false);
    expect(ruleHolds(r, pts([Infinity, -Infinity, NaN]), 0, 0).holds).toBe(true);
  });

  test("above / below compare strictly with the threshold", () => {
    expect(
      ruleHolds(spec({ condition: "above", threshold: 5, forSteps: 2 }), pts([6, 5.5]), 0, 0).holds,
    ).toBe(true);
    expect(
      ruleHolds(spec({ condition: "above", threshold: 5, forSteps: 2 }), pts([6, 5]), 0, 0).holds,
    ).toBe(false);
    expect(
      ruleHolds(spec({ condition: "below", threshold: 100, forSteps: 1 }), pts([NaN]), 0, 0).holds,
    ).toBe(false);
    expect(
      ruleHolds(spec({ condition: "below", threshold: 100, forSteps: 1 }), pts([99]), 0, 0).holds,
    ).toBe(true);
  });

  test("seconds: the streak of points meeting it must have begun at least S seconds ago", () => {
    const r = spec({ condition: "below", threshold: 100, forSeconds: 30 });
    // Points every 10 s, newest at 100 s; below 100 since the point at 70 s.
    const p = pts([50, 60, 70, 80, 500], 100_000);
    expect(ruleHolds(r, p, 100_000, 0)).toEqual({ holds: true, detail: "loss below 100 for 30 s" });
    expect(ruleHolds(r, pts([50, 60, 500], 100_000), 100_000, 0).holds).toBe(false);
    expect(ruleHolds(r, pts([500, 50, 60, 70], 100_000), 200_000, 0).holds).toBe(false);
  });

  test("no data: silent for S seconds since the last point, or since the start without points", () => {
    const r = spec({ condition: "no_data", forSeconds: 60 });
    expect(ruleHolds(r, pts([1], 100_000), 159_000, 0).holds).toBe(false);
    expect(ruleHolds(r, pts([1], 100_000), 160_000, 0)).toEqual({
      holds: true,
      detail: "loss has no new point for 60 s",
    });
    expect(ruleHolds(r, [], 70_000, 10_000).holds).toBe(true);
  });

  test("the detail names the metric by label and unit, the threshold as the pages show it", () => {
    const kv = spec({
      metricKey: "serving/kv_cache_usage",
      condition: "above",
      threshold: 0.6,
      forSteps: 1,
    });
    expect(ruleHolds(kv, pts([0.75]), 0, 0).detail).toMatch(
      /^KV cache \(%\) above 60\.0% for 1 step /,
    );
    const silent = spec({ metricKey: "prompts_per_s", condition: "no_data", forSeconds: 30 });
    expect(ruleHolds(silent, [], 40_000, 0).detail).toBe("prompts/s has no new point for 40 s");
  });
});

describe("alertRuleInput", () => {
  test("accepts a complete rule and rejects the inconsistent ones", () => {
    expect(
      alertRuleInput.safeParse({
        name: "n",
        kind: "training",
        metricKey: "loss",
        condition: "above",
        threshold: 3,
        forSeconds: 60,
      }).success,
    ).toBe(true);
    expect(
      alertRuleInput.safeParse({
        name: "n",
        kind: "training",
        metricKey: "loss",
        condition: "nan",
        threshold: 3,
        forSteps: 3,
      }).success,
    ).toBe(false);
    expect(
      alertRuleInput.safeParse({ name: "n", kind: "training", metricKey: "loss", condition: "nan" })
        .success,
    ).toBe(false);
    expect(
      alertRuleInput.safeParse({
        name: "n",
        kind: "training",
        metricKey: "loss",
        condition: "nan",
        forSteps: 0,
      }).success,
    ).toBe(false);
  });
});
