import type { AlertRuleInput } from "@/lib/alerts/rule";

/** An alert rule as the API and the /alerts page show it, with its open firings. */
export interface AlertRuleView extends Omit<
  AlertRuleInput,
  "tag" | "threshold" | "forSteps" | "forSeconds"
> {
  id: number;
  tag: string | null;
  threshold: number | null;
  forSteps: number | null;
  forSeconds: number | null;
  createdBy: string;
  updatedBy: string;
  updatedAt: string;
  /** Runs the rule is firing on now. */
  firing: Array<{ runId: number; runName: string; firedAt: string; detail: string }>;
}
