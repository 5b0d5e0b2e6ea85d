"use client";

import { Check, CircleX, MessageSquareWarning, Pencil, TriangleAlert } from "lucide-react";
import { useRef, useState } from "react";

import { fromEditable, toEditable, type EditableItem } from "@/components/plans/plan-items-editor";
import { decisionBody, useDecidePlan } from "@/components/plans/use-decide-plan";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { decisionItems, type DecisionRequest } from "@/lib/api/fetchers/plans";
import type { PlanDetailView } from "@/lib/view-models/plans";

interface DecisionPanelProps {
  plan: PlanDetailView;
  viewerName: string;
  /** The plan was based on a run state that has changed. */
  stale: boolean;
  /** Items being edited ("approve with edits"), or null. */
  editing: EditableItem[] | null;
  onEditing: (items: EditableItem[] | null) => void;
  /** A decision was recorded (`edited`: approved with edited items). */
  onDecided: (decision: DecisionRequest["decision"], edited: boolean) => void;
  /** Someone decided first (409): the server's message. The page shows it, since this panel then goes away. */
  onConflict: (message: string) => void;
}

/**
 * The decision actions of a pending plan: Approve, Approve with edits (the items card turns into
 * an editor), Request changes (comment required) and Reject (comment optional). A decision
 * someone else recorded first comes back as 409 and is shown as "already decided by …".
 */
export function DecisionPanel({
  plan,
  viewerName,
  stale,
  editing,
  onEditing,
  onDecided,
  onConflict,
}: DecisionPanelProps) {
  const [comment, setComment] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const { decide, busy, error, conflict } = useDecidePlan(plan.id, {
    onDecided: (body) => {
      onEditing(null);
      onDecided(body.decision, body.items !== undefined);
    },
    onConflict,
  });

  const submit = (decision: DecisionRequest["decision"]) => {
    setFormError(null);
    const checked = decisionBody(decision, comment);
    if ("error" in checked) {
      setFormError(checked.error);
      commentRef.current?.focus();
      return;
    }
    const body = checked.body;
    if (decision === "approved" && editing) {
      const items = fromEditable(editing);
      const empty = items.findIndex((i) => i.content === "");
      if (empty >= 0) {
        setFormError(`Item ${empty + 1} is empty: write it or remove it.`);
        return;
      }
      body.items = decisionItems(items);
    }
    decide(body);
  };

  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Decide</CardTitle>
        <CardDescription>
          as <span className="font-medium text-foreground">{viewerName}</span> · the agent receives
          the decision at once
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {stale && (
          <p className="flex items-center gap-2 text-xs font-medium text-stale">
            <TriangleAlert aria-hidden className="size-3.5" />
            Based on stale state: the linked run has changed since this plan was proposed.
          </p>
        )}
        <div className="grid gap-1">
          <label htmlFor="decision-comment" className="text-xs font-medium">
            Comment{" "}
            <span className="font-normal text-muted-fg">
              (sent to the agent; required to request changes)
            </span>
          </label>
          <textarea
            id="decision-comment"
            ref={commentRef}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
            rows={3}
            maxLength={20_000}
            disabled={busy}
            placeholder="e.g. proceed; after upload remove local data; max 100 parallel"
            aria-invalid={formError !== null && comment.trim() === "" ? true : undefined}
            aria-describedby={formError ? "decision-error" : undefined}
            className="min-h-16 resize-y rounded-md border border-input bg-card px-2.5 py-1.5 text-[13px] leading-5 shadow-xs placeholder:text-muted-fg/70 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-failed"
          />
        </div>
        {formError && (
          <p id="decision-error" role="alert" className="text-xs font-medium text-failed">
            {formError}
          </p>
        )}
        {error && !conflict && (
          <p
            role="alert"
            className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
          >
            Could not record the decision: {error.message}
          </p>
        )}
        <div className="flex flex-wrap items-center gap-2">
          {editing ? (
            <>
              <Button onClick={() => submit("approved")} disabled={busy}>
                <Check aria-hidden />
                Approve with edits
              </Button>
              <Button variant="ghost" onClick={() => onEditing(null)} disabled={busy}>
                Cancel edits
              </Button>
            </>
          ) : (
            <>
              <Button onClick={() => submit("approved")} disabled={busy}>
                <Check aria-hidden />
                Approve
              </Button>
              <Button
                variant="outline"
                onClick={() => onEditing(toEditable(plan.items))}
                disabled={busy}
              >
                <Pencil aria-hidden />
                Approve with edits
              </Button>
              <Button variant="outline" onClick={() => submit("changes_requested")} disabled={busy}>
                <MessageSquareWarning aria-hidden />
                Request changes
              </Button>
              <Button
                variant="outline"
                className="text-failed hover:bg-failed-bg"
                onClick={() => submit("rejected")}
                disabled={busy}
              >
                <CircleX aria-hidden />
                Reject
              </Button>
            </>
          )}
          {busy && <span className="text-xs text-muted-fg">Recording…</span>}
        </div>
      </CardContent>
    </Card>
  );
}
