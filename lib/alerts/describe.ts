import { formatMetricValue, metricLabel } from "@/lib/metric-labels";
import type { AlertRuleView } from "@/lib/view-models/alerts";

/**
 * A rule's condition in words for the rules table, the metric by its label and the threshold in
 * its unit (lib/metric-labels.ts): "loss is NaN/Inf for 3 steps", "KV cache above 60.0% for 1
 * step", "Output below 5.0 tok/s for 30 s".
 */
export function describeAlertRule(
  r: Pick<AlertRuleView, "metricKey" | "condition" | "threshold" | "forSteps" | "forSeconds">,
): string {
  const m = metricLabel(r.metricKey);
  // A key with a unit reads in it ("60.0%"); a bare one as the person typed it ("4.5", not "4.50").
  const threshold =
    r.threshold === null
      ? "?"
      : m.unit || m.scale
        ? formatMetricValue(r.metricKey, r.threshold)
        : String(r.threshold);
  const cond =
    r.condition === "above"
      ? `above ${threshold}`
      : r.condition === "below"
        ? `below ${threshold}`
        : r.condition === "nan"
          ? "is NaN/Inf"
          : "has no data";
  const span =
    r.forSteps !== null
      ? `${r.forSteps} ${r.forSteps === 1 ? "step" : "steps"}`
      : `${r.forSeconds} s`;
  return `${m.label} ${cond} for ${span}`;
}
