/** Types of plan.mjs (plain JS so hooks run without a TypeScript loader). */
export interface ProposedPlan {
  title: string;
  items: { content: string }[];
  body: string;
}
export interface PlanDecision {
  decision: "approved" | "changes_requested" | "rejected" | "expired";
  items?: { content: string }[];
  comment: string | null;
  decidedBy: string | null;
}
/** Title and steps of a markdown plan. */
export function planFromMarkdown(markdown: string): { title: string; items: { content: string }[] };
/** What the agent is told about a decision. */
export function decisionForAgent(
  decision: PlanDecision,
  proposed: ProposedPlan,
  proposeTool?: string,
): { allow: true; plan: string } | { allow: false; message: string };
/** Proposes a plan and long-polls its decision; null on timeout or when it could not be proposed. */
export function proposeAndWait(
  cfg: unknown,
  frame: Record<string, unknown>,
  opts: {
    timeoutS: number;
    postFrames: unknown;
    sleep?: (ms: number) => Promise<void>;
    now?: () => number;
  },
): Promise<PlanDecision | null>;
