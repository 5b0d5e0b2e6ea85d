"use client";

import { Check, CircleX, MessageSquareWarning } from "lucide-react";
import { useId, useState } from "react";

import { Button } from "@/components/ui/button";
import { type DecisionRequest } from "@/lib/api/fetchers/plans";
import type { PlanSummaryView } from "@/lib/view-models/plans";

import { decisionBody, useDecidePlan } from "./use-decide-plan";

type Commented = Extract<DecisionRequest["decision"], "changes_requested" | "rejected">;

const SEND_LABEL: Record<Commented, string> = {
  changes_requested: "Send: request changes",
  rejected: "Send: reject",
};

/**
 * Decide a pending plan from a list (approver role only; the caller checks): Approve records the
 * plan as proposed at once; Request changes and Reject open a comment box first (a comment is
 * required to request changes, optional to reject; it is sent to the agent). Edits to the items
 * are made on the plan's own page. A decision someone else recorded first shows their message.
 */
export function InlineDecision({ plan }: { plan: Pick<PlanSummaryView, "id" | "title"> }) {
  const [open, setOpen] = useState<Commented | null>(null);
  const [comment, setComment] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const { decide, busy, error, conflict } = useDecidePlan(plan.id, {
    onDecided: () => setOpen(null),
  });
  const commentId = useId();

  const send = (decision: DecisionRequest["decision"]) => {
    const checked = decisionBody(decision, comment);
    if ("error" in checked) return setFormError(checked.error);
    setFormError(null);
    decide(checked.body);
  };
  const toggle = (d: Commented) => {
    setFormError(null);
    setOpen((o) => (o === d ? null : d));
  };

  return (
    <div className="grid gap-2" role="group" aria-label={`Decide “${plan.title}”`}>
      <div className="flex flex-wrap items-center gap-1.5">
        <Button size="sm" onClick={() => send("approved")} disabled={busy}>
          <Check aria-hidden />
          Approve
        </Button>
        <Button
          size="sm"
          variant="outline"
          onClick={() => toggle("changes_requested")}
          disabled={busy}
          aria-expanded={open === "changes_requested"}
        >
          <MessageSquareWarning aria-hidden />
          Request changes
        </Button>
        <Button
          size="sm"
          variant="outline"
          className="text-failed hover:bg-failed-bg"
          onClick={() => toggle("rejected")}
          disabled={busy}
          aria-expanded={open === "rejected"}
        >
          <CircleX aria-hidden />
          Reject
        </Button>
        {busy && <span className="text-xs text-muted-fg">Recording…</span>}
      </div>
      {open && (
        <div className="grid gap-1.5">
          <label htmlFor={commentId} className="text-xs font-medium">
            Comment for the agent{" "}
            <span className="font-normal text-muted-fg">
              ({open === "changes_requested" ? "required" : "optional"})
            </span>
          </label>
          <textarea
            id={commentId}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
            rows={2}
            maxLength={20_000}
            disabled={busy}
            autoFocus
            aria-invalid={formError ? true : undefined}
            className="min-h-12 resize-y rounded-md border border-input bg-card px-2 py-1 text-[13px] leading-5 font-normal shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-failed"
          />
          <div className="flex items-center gap-1.5">
            <Button
              size="sm"
              variant={open === "rejected" ? "outline" : "default"}
              className={open === "rejected" ? "text-failed hover:bg-failed-bg" : undefined}
              onClick={() => send(open)}
              disabled={busy}
            >
              {SEND_LABEL[open]}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setOpen(null)} disabled={busy}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      {formError && (
        <p role="alert" className="text-xs font-medium text-failed">
          {formError}
        </p>
      )}
      {error && (
        <p role="alert" className="text-xs font-medium text-failed">
          {conflict ?? `Could not record the decision: ${error.message}`}
        </p>
      )}
    </div>
  );
}
