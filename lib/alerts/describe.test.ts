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
    ).toBe("tok_per_s below 5 for 30 s");
  });
});
