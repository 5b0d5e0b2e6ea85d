"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { liveRunState, useServerNow } from "@/components/pipelines/use-server-now";
import { type EditableItem } from "@/components/plans/plan-items-editor";
import { PlanMarkdown } from "@/components/plans/plan-markdown";
import { planStateLabel } from "@/components/plans/plan-state-badge";
import { PlanVersionDiff } from "@/components/plans/plan-version-diff";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchPlan } from "@/lib/api/fetchers/plans";
import { planQueryKey, planTopic, sessionTopic } from "@/lib/api/query-keys";
import { runTopic } from "@/lib/protocol/live";
import type { RunState } from "@/lib/view-models";
import type { PlanDetailView } from "@/lib/view-models/plans";

import { DecisionHistory } from "./decision-history";
import { DecisionNotice, type Notice } from "./decision-notice";
import { DecisionPanel } from "./decision-panel";
import { PlanHeader } from "./plan-header";
import { PlanItemsCard } from "./plan-items-card";
import { PlanLineComments } from "./plan-line-comments";
import { RunCard } from "./run-card";
import { SessionCard } from "./session-card";
import { StaleStateWarning } from "./stale-state-warning";

/**
 * The live plan page: header with expiry countdown, a prominent warning when the plan was based
 * on a run state that has changed since, rationale, items (editable while approving with edits),
 * the decision actions for approvers, every decision taken, and the linked run and session now.
 */
export function PlanDetail({
  initial,
  renderedAt,
  canDecide,
  viewerName,
}: {
  initial: PlanDetailView;
  renderedAt: number;
  canDecide: boolean;
  viewerName: string;
}) {
  const id = initial.id;
  // The linked run and session are fixed once proposed (a re-proposal that relinks is rare; the
  // plan topic still refreshes the page then).
  const topics = [
    planTopic(id),
    ...(initial.run ? [runTopic(initial.run.id)] : []),
    ...(initial.sessionDetail ? [sessionTopic(initial.sessionDetail.id)] : []),
  ];
  const live = useLiveTopics(topics);
  // A change of the linked run or session changes what this page shows ("based on stale state").
  useLiveInvalidate(topics.slice(1), [planQueryKey(id)]);
  const {
    data: plan,
    error,
    dataUpdatedAt,
  } = useQuery({
    queryKey: planQueryKey(id),
    queryFn: ({ signal }) => fetchPlan(id, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const serverNow = useServerNow(plan.asOf, dataUpdatedAt);
  const [editing, setEditing] = useState<EditableItem[] | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);

  // Staleness of the run is re-derived on the server's clock: nothing is pushed when a worker goes quiet.
  const runNow: RunState | null = plan.run
    ? liveRunState(plan.run.state, plan.run.lastPushAt, plan.run.stallAfterS, serverNow)
    : null;
  const pending = plan.state === "proposed" && Date.parse(plan.expiresAt) > serverNow;
  const state = plan.state === "proposed" && !pending ? "expired" : plan.state;
  const stale =
    plan.runStateAtProposal !== null && (plan.run === null || runNow !== plan.runStateAtProposal);

  return (
    <div className="grid gap-4">
      <PlanHeader plan={plan} state={state} pending={pending} serverNow={serverNow} />

      {stale && pending && (
        <StaleStateWarning
          atProposal={plan.runStateAtProposal ?? ""}
          run={plan.run}
          runNow={runNow}
        />
      )}
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh this plan ({error.message}); showing the last data received.
        </p>
      )}

      <div className="grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(340px,420px)]">
        <div className="grid min-w-0 gap-4">
          {plan.versionDiff && (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Changes since the previous version</CardTitle>
              </CardHeader>
              <CardContent>
                <PlanVersionDiff diff={plan.versionDiff} />
              </CardContent>
            </Card>
          )}
          {plan.body && (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Plan</CardTitle>
                <CardDescription>as the agent wrote it</CardDescription>
              </CardHeader>
              <CardContent
                className="max-h-[32rem] overflow-y-auto"
                tabIndex={0}
                aria-label="Plan text"
              >
                <PlanMarkdown markdown={plan.body} />
              </CardContent>
            </Card>
          )}
          {plan.body && (
            <PlanLineComments planId={plan.id} body={plan.body} canComment={canDecide} />
          )}
          {plan.rationale && (
            <Card className="min-w-0">
              <CardHeader>
                <CardTitle>Rationale</CardTitle>
              </CardHeader>
              {/* Plain text with the author's line breaks: agent-written markdown is never rendered as HTML. */}
              <CardContent
                className="max-h-96 overflow-y-auto text-[13px] leading-5 break-words whitespace-pre-wrap"
                tabIndex={0}
                aria-label="Rationale"
              >
                {plan.rationale}
              </CardContent>
            </Card>
          )}
          <PlanItemsCard
            items={plan.items}
            pending={pending}
            editing={editing}
            onEditing={setEditing}
          />
          {pending && canDecide && (
            <DecisionPanel
              plan={plan}
              viewerName={viewerName}
              stale={stale}
              editing={editing}
              onEditing={setEditing}
              onDecided={(decision, edited) =>
                setNotice({
                  kind: "decided",
                  text: `${planStateLabel(decision)}${edited ? " with edits" : ""}`,
                })
              }
              onConflict={(message) => {
                setEditing(null);
                setNotice({ kind: "conflict", message });
              }}
            />
          )}
          {pending && !canDecide && (
            <p className="rounded-md border border-border bg-card px-4 py-3 text-sm text-muted-fg">
              Only people with the approver role can decide plans.
            </p>
          )}
          {notice && <DecisionNotice notice={notice} plan={plan} state={state} pending={pending} />}
          {plan.decisions.length > 0 && <DecisionHistory plan={plan} />}
        </div>
        <div className="grid min-w-0 gap-4">
          <RunCard plan={plan} runNow={runNow} stale={stale} />
          <SessionCard plan={plan} />
        </div>
      </div>
    </div>
  );
}
