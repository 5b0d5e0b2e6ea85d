import { describe, expect, test } from "vitest";

import { alertTitle, isResolution } from "./alerts";

describe("alertTitle", () => {
  const names = new Map([[3, "loss went NaN"]]);

  test("a rule's alert reads as the rule's name once names are known", () => {
    expect(alertTitle("alert_rule_3", names)).toBe("Alert “loss went NaN”");
    expect(alertTitle("alert_rule_3_resolved", names)).toBe("Alert “loss went NaN” resolved");
  });

  test("by number until the names are loaded, or for a deleted rule", () => {
    expect(alertTitle("alert_rule_3")).toBe("Alert rule #3");
    expect(alertTitle("alert_rule_4", names)).toBe("Alert rule #4");
  });

  test("built-in codes by title; unknown codes as sent", () => {
    expect(alertTitle("step_overflow", names)).toBe("Step counter overflow");
    expect(alertTitle("some_new_code")).toBe("some new code");
    expect(isResolution("alert_rule_3_resolved")).toBe(true);
    expect(isResolution("alert_rule_3")).toBe(false);
  });
});
