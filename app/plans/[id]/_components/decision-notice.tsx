import { planStateLabel } from "@/components/plans/plan-state-badge";
import type { PlanDetailView, PlanState } from "@/lib/view-models/plans";

/** What became of this person's decision: recorded, or refused because someone or something came first. */
export type Notice = { kind: "decided"; text: string } | { kind: "conflict"; message: string };

/**
 * The answer to this person's decision on the plan: why it was not recorded (expired, closed, or
 * decided by someone else first, read from the refreshed `plan`), or that it was recorded.
 */
export function DecisionNotice({
  notice,
  plan,
  state,
  pending,
}: {
  notice: Notice;
  plan: PlanDetailView;
  state: PlanState;
  pending: boolean;
}) {
  return (
    <>
      {notice.kind === "conflict" && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Your decision was not recorded:{" "}
          {state === "expired" && plan.closedReason
            ? `${planStateLabel(state, plan.closedReason).toLowerCase()}; the agent no longer waits for a decision.`
            : state === "expired"
              ? "the plan expired first."
              : plan.decidedBy
                ? `already decided by ${plan.decidedBy} (${planStateLabel(state).toLowerCase()}).`
                : notice.message}
        </p>
      )}
      {notice.kind === "decided" && !pending && (
        <p
          role="status"
          className="rounded-md border border-succeeded/40 bg-succeeded-bg px-3 py-2 text-sm text-succeeded"
        >
          Recorded: {notice.text}. The agent receives the decision now.
        </p>
      )}
    </>
  );
}
