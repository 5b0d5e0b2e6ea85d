import type { AlertRuleView } from "@/lib/view-models/alerts";

/** A rule's condition in words for the rules table: "loss is NaN/Inf for 3 steps", "tok/s below 5 for 1 step", "… for 30 s". */
export function describeAlertRule(
  r: Pick<AlertRuleView, "metricKey" | "condition" | "threshold" | "forSteps" | "forSeconds">,
): string {
  const cond =
    r.condition === "above"
      ? `above ${r.threshold}`
      : r.condition === "below"
        ? `below ${r.threshold}`
        : r.condition === "nan"
          ? "is NaN/Inf"
          : "has no data";
  const span =
    r.forSteps !== null
      ? `${r.forSteps} ${r.forSteps === 1 ? "step" : "steps"}`
      : `${r.forSeconds} s`;
  return `${r.metricKey} ${cond} for ${span}`;
}
