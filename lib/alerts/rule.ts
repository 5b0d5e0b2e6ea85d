import { z } from "zod";

import { formatMetricValue, metricTitle } from "@/lib/metric-labels";
import { RUN_KINDS } from "@/lib/protocol";

/** Conditions an alert rule can watch for. `nan` also catches ±Infinity. */
export const ALERT_CONDITIONS = ["above", "below", "nan", "no_data"] as const;
/** One of {@link ALERT_CONDITIONS}. */
export type AlertConditionName = (typeof ALERT_CONDITIONS)[number];

/**
 * An alert rule as people write it (POST/PATCH /api/alert-rules). `above`/`below` need a finite
 * `threshold`; exactly one of `forSteps` (consecutive points, 1-10,000) or `forSeconds`
 * (5 s-30 d) says how long it must hold; `no_data` takes seconds only.
 */
export const alertRuleInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    kind: z.enum(RUN_KINDS),
    tag: z.string().trim().min(1).max(100).nullish(),
    metricKey: z.string().trim().min(1).max(200),
    condition: z.enum(ALERT_CONDITIONS),
    threshold: z.number().finite().nullish(),
    forSteps: z.number().int().min(1).max(10_000).nullish(),
    forSeconds: z
      .number()
      .int()
      .min(5)
      .max(30 * 86_400)
      .nullish(),
    enabled: z.boolean().default(true),
  })
  .superRefine((r, ctx) => {
    const needsThreshold = r.condition === "above" || r.condition === "below";
    if (needsThreshold && (r.threshold === null || r.threshold === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["threshold"],
        message: `"${r.condition}" needs a threshold`,
      });
    if (!needsThreshold && r.threshold !== null && r.threshold !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["threshold"],
        message: `"${r.condition}" takes no threshold`,
      });
    const steps = r.forSteps !== null && r.forSteps !== undefined;
    const seconds = r.forSeconds !== null && r.forSeconds !== undefined;
    if (steps === seconds)
      ctx.addIssue({
        code: "custom",
        path: ["forSteps"],
        message: "give exactly one of forSteps or forSeconds",
      });
    if (r.condition === "no_data" && steps)
      ctx.addIssue({
        code: "custom",
        path: ["forSteps"],
        message: '"no_data" is measured in seconds (forSeconds)',
      });
  });

/** A validated rule input. */
export type AlertRuleInput = z.infer<typeof alertRuleInput>;

/** The parts of a rule the check needs. */
export interface RuleSpec {
  metricKey: string;
  condition: AlertConditionName;
  threshold: number | null;
  forSteps: number | null;
  forSeconds: number | null;
}

/** One stored point of the watched metric. */
export interface RulePoint {
  step: number;
  value: number;
  tsMs: number;
}

/** True when `value` meets the rule's condition (never for `no_data`, which looks at time). */
export function meets(rule: RuleSpec, value: number): boolean {
  switch (rule.condition) {
    case "above":
      return value > (rule.threshold ?? Infinity);
    case "below":
      return value < (rule.threshold ?? -Infinity);
    case "nan":
      return !Number.isFinite(value);
    case "no_data":
      return false;
  }
}

/**
 * Whether the rule holds now, with a one-line reason when it does. `newestFirst` are the metric's
 * latest points by step, newest first (at least `forSteps` of them, or those of the last
 * `forSeconds` and one before); `sinceMs` is when the run started (for `no_data` without points).
 * Steps: the newest `forSteps` points all meet the condition. Seconds: the newest point meets it
 * and every point since `nowMs − forSeconds` does, the streak having begun at or before then.
 */
export function ruleHolds(
  rule: RuleSpec,
  newestFirst: readonly RulePoint[],
  nowMs: number,
  sinceMs: number,
): { holds: boolean; detail: string } {
  const what =
    rule.condition === "nan"
      ? "NaN/Inf"
      : rule.condition === "no_data"
        ? "silent"
        : `${rule.condition} ${formatMetricValue(rule.metricKey, rule.threshold ?? Number.NaN)}`;
  // The metric by its label and unit ("KV cache (%) above 60.0%", "prompts/s has no new point").
  const metric = metricTitle(rule.metricKey);
  if (rule.condition === "no_data") {
    const lastMs = newestFirst[0]?.tsMs ?? sinceMs;
    const silentS = Math.floor((nowMs - lastMs) / 1000);
    return {
      holds: silentS >= (rule.forSeconds ?? Infinity),
      detail: `${metric} has no new point for ${silentS} s`,
    };
  }
  if (rule.forSteps !== null) {
    const window = newestFirst.slice(0, rule.forSteps);
    const holds = window.length === rule.forSteps && window.every((p) => meets(rule, p.value));
    const first = window[window.length - 1]?.step;
    const last = window[0]?.step;
    return {
      holds,
      detail: `${metric} ${what} for ${rule.forSteps} step${rule.forSteps === 1 ? "" : "s"} (steps ${first}-${last})`,
    };
  }
  const forMs = (rule.forSeconds ?? Infinity) * 1000;
  let streakStartMs: number | null = null;
  for (const p of newestFirst) {
    if (!meets(rule, p.value)) break;
    streakStartMs = p.tsMs;
  }
  const heldS = streakStartMs === null ? 0 : Math.floor((nowMs - streakStartMs) / 1000);
  return {
    holds: streakStartMs !== null && nowMs - streakStartMs >= forMs,
    detail: `${metric} ${what} for ${heldS} s`,
  };
}
