import { describe, expect, it } from "vitest";

import { describeAlertRule } from "./describe";

describe("describeAlertRule", () => {
  const base = { metricKey: "loss", threshold: null, forSeconds: null };
  it("says step for one step and steps for more", () => {
    expect(describeAlertRule({ ...base, condition: "nan", forSteps: 1 })).toBe(
      "loss is NaN/Inf for 1 step",
    );
    expect(describeAlertRule({ ...base, condition: "nan", forSteps: 3 })).toBe(
      "loss is NaN/Inf for 3 steps",
    );
  });
  it("names thresholds and seconds", () => {
    expect(
      describeAlertRule({
        metricKey: "tok_per_s",
        condition: "below",
        threshold: 5,
        forSteps: null,
        forSeconds: 30,
      }),
    ).toBe("Output below 5.0 tok/s for 30 s");
  });
  it("names a serving metric by its label and a fraction threshold in %", () => {
    expect(
      describeAlertRule({
        metricKey: "serving/kv_cache_usage",
        condition: "above",
        threshold: 0.6,
        forSteps: 1,
        forSeconds: null,
      }),
    ).toBe("KV cache above 60.0% for 1 step");
    expect(
      describeAlertRule({
        metricKey: "loss",
        condition: "above",
        threshold: 4.5,
        forSteps: 5,
        forSeconds: null,
      }),
    ).toBe("loss above 4.5 for 5 steps");
  });
});
