"use client";

import { useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import Link from "next/link";
import { useState } from "react";

import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { liveRunState, useServerNow } from "@/components/pipelines/use-server-now";
import { ExpiryCountdown } from "@/components/plans/expiry-countdown";
import { PlanItemList } from "@/components/plans/plan-item-list";
import { PlanItemsDiffView } from "@/components/plans/plan-items-diff";
import {
  PlanItemsEditor,
  toEditable,
  type EditableItem,
} from "@/components/plans/plan-items-editor";
import { PlanMarkdown } from "@/components/plans/plan-markdown";
import { PlanStateBadge, planStateLabel } from "@/components/plans/plan-state-badge";
import { PlanVersionDiff } from "@/components/plans/plan-version-diff";
import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { TodoProgress } from "@/components/sessions/todo-progress";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { MetaItem } from "@/components/ui/meta-item";
import { fetchPlan } from "@/lib/api/fetchers/plans";
import { planQueryKey, planTopic, sessionTopic } from "@/lib/api/query-keys";
import { hostPath, runPath, sessionPath } from "@/lib/paths";
import { runTopic } from "@/lib/protocol/live";
import type { RunState } from "@/lib/view-models";
import type { PlanDetailView, PlanRunView } from "@/lib/view-models/plans";

import { DecisionPanel } from "./decision-panel";
import { PlanLineComments } from "./plan-line-comments";

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
  const [notice, setNotice] = useState<
    { kind: "decided"; text: string } | { kind: "conflict"; message: string } | null
  >(null);

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
      <div className="grid gap-2">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1
            className="min-w-0 truncate text-lg font-semibold tracking-tight max-md:wrap-anywhere max-md:whitespace-normal"
            title={plan.title}
          >
            {plan.title}
          </h1>
          <PlanStateBadge state={state} closedReason={plan.closedReason} />
          {pending && (
            <span className="ml-auto inline-flex h-6 items-center gap-1.5 rounded-full border border-border bg-card px-2.5 text-xs text-muted-fg">
              Expires{" "}
              <ExpiryCountdown
                expiresAt={plan.expiresAt}
                serverNowMs={serverNow}
                pending
                className="text-foreground"
              />
            </span>
          )}
        </div>
        <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
          <MetaItem label="Proposed by">
            <Link href={hostPath(plan.host)} className="rounded-sm text-foreground hover:underline">
              {plan.host}
            </Link>
          </MetaItem>
          <MetaItem label="Proposed">
            <RelativeTime iso={plan.proposedAt} className="text-foreground" />
          </MetaItem>
          <MetaItem label="Items">
            <span className="text-foreground">{plan.items.length}</span>
          </MetaItem>
          <MetaItem label="Key">
            <span className="font-mono text-xs text-foreground">{plan.key}</span>
          </MetaItem>
        </dl>
      </div>

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
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>
                {editing ? "Items (editing)" : pending ? "Proposed items" : "Items as proposed"}
              </CardTitle>
              <CardDescription className="tabular-nums">
                {editing
                  ? "edit, reorder, add or remove; the agent receives the list as you leave it"
                  : `${plan.items.length} step${plan.items.length === 1 ? "" : "s"} in order`}
              </CardDescription>
              {editing && (
                <Button
                  variant="ghost"
                  size="sm"
                  className="ml-auto"
                  onClick={() => setEditing(toEditable(plan.items))}
                >
                  Reset to proposal
                </Button>
              )}
            </CardHeader>
            {editing ? (
              <CardContent>
                <PlanItemsEditor items={editing} onChange={setEditing} />
              </CardContent>
            ) : (
              <PlanItemList items={plan.items} label="Proposed items" />
            )}
          </Card>
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
          {notice?.kind === "conflict" && (
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
          {notice?.kind === "decided" && !pending && (
            <p
              role="status"
              className="rounded-md border border-succeeded/40 bg-succeeded-bg px-3 py-2 text-sm text-succeeded"
            >
              Recorded: {notice.text}. The agent receives the decision now.
            </p>
          )}
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

/** "Based on stale state": the run this plan was written against is not in that state any more. */
function StaleStateWarning({
  atProposal,
  run,
  runNow,
}: {
  atProposal: string;
  run: PlanRunView | null;
  runNow: RunState | null;
}) {
  return (
    <div
      role="alert"
      className="flex items-start gap-3 rounded-lg border border-stale/50 bg-stale-bg px-4 py-3 text-stale"
    >
      <TriangleAlert aria-hidden className="mt-0.5 size-5 shrink-0" />
      <div className="grid gap-0.5 text-sm">
        <p className="font-semibold">Based on stale state</p>
        <p>
          {run ? (
            <>
              When this plan was proposed, run{" "}
              <Link href={runPath(run.id)} className="font-medium underline underline-offset-2">
                {run.name}
              </Link>{" "}
              was <strong>{atProposal}</strong>; it is <strong>{runNow}</strong> now.
            </>
          ) : (
            <>
              When this plan was proposed, its run was <strong>{atProposal}</strong>; that run no
              longer exists.
            </>
          )}{" "}
          Check the run before approving: the steps may no longer fit.
        </p>
      </div>
    </div>
  );
}

function RunCard({
  plan,
  runNow,
  stale,
}: {
  plan: PlanDetailView;
  runNow: RunState | null;
  stale: boolean;
}) {
  const run = plan.run;
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Run</CardTitle>
        {run && <CardDescription className="ml-auto">{run.kind}</CardDescription>}
      </CardHeader>
      <CardContent className="grid gap-2 text-[13px]">
        {run ? (
          <>
            <div className="flex min-w-0 items-center gap-2">
              <Link
                href={runPath(run.id)}
                className="min-w-0 truncate rounded-sm font-medium hover:underline"
                title={run.name}
              >
                {run.name}
              </Link>
              <StatusBadge state={runNow ?? run.state} className="ml-auto shrink-0" />
            </div>
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs text-muted-fg tabular-nums">
              <dt>Host</dt>
              <dd className="text-foreground">{run.host}</dd>
              <dt>Last push</dt>
              <dd className="text-foreground">
                <RelativeTime iso={run.lastPushAt} />
              </dd>
              <dt>When proposed</dt>
              <dd className={stale ? "font-medium text-stale" : "text-foreground"}>
                {plan.runStateAtProposal ?? "—"}
                {stale && ` → ${runNow} now`}
              </dd>
            </dl>
          </>
        ) : plan.runStateAtProposal !== null ? (
          <p className="text-stale">
            The run this plan named (then {plan.runStateAtProposal}) no longer exists.
          </p>
        ) : (
          <p className="text-muted-fg">
            No run linked. Agents link one with &quot;run&quot;: &quot;&lt;run key&gt;&quot; in
            plan.json.
          </p>
        )}
      </CardContent>
    </Card>
  );
}

function SessionCard({ plan }: { plan: PlanDetailView }) {
  const s = plan.sessionDetail;
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Agent session</CardTitle>
        {s && <SessionSourceLabel source={s.source} className="ml-auto text-xs text-muted-fg" />}
      </CardHeader>
      <CardContent className="grid gap-2 text-[13px]">
        {s ? (
          <>
            <div className="flex min-w-0 items-center gap-2">
              <Link
                href={sessionPath(s.id)}
                className="min-w-0 truncate rounded-sm font-medium hover:underline"
                title={s.title ?? s.key}
              >
                {s.title ?? s.key}
              </Link>
              <TodoProgress progress={s.progress} className="ml-auto shrink-0 text-xs" />
            </div>
            {s.current && (
              <p className="flex min-w-0 items-center gap-1.5 text-xs" title={s.current.content}>
                <span aria-hidden className="size-1.5 shrink-0 rounded-full bg-running" />
                <span className="min-w-0 truncate text-running max-md:break-words max-md:whitespace-normal">
                  {s.current.activeForm ?? s.current.content}
                </span>
              </p>
            )}
            <p className="text-xs text-muted-fg">
              last todo write <RelativeTime iso={s.lastUpdateAt} />
            </p>
          </>
        ) : (
          <p className="text-muted-fg">
            No session linked. Agents link theirs with &quot;session&quot;: &quot;&lt;session
            key&gt;&quot; in plan.json.
          </p>
        )}
      </CardContent>
    </Card>
  );
}

function DecisionHistory({ plan }: { plan: PlanDetailView }) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Decision{plan.decisions.length === 1 ? "" : "s"}</CardTitle>
        <CardDescription>who decided, when, and what changed against the proposal</CardDescription>
      </CardHeader>
      <ol className="divide-y divide-border">
        {plan.decisions.map((d) => (
          <li key={d.id} className="grid gap-2 px-4 py-3">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
              <PlanStateBadge state={d.decision} />
              <span>
                by <span className="font-medium">{d.decidedBy}</span>
              </span>
              <RelativeTime iso={d.decidedAt} className="text-muted-fg" />
            </div>
            {d.comment && (
              <p className="rounded-md border border-border bg-muted/50 px-3 py-2 text-[13px] leading-5 break-words whitespace-pre-wrap">
                {d.comment}
              </p>
            )}
            <PlanItemsDiffView diff={d.changes} />
          </li>
        ))}
      </ol>
    </Card>
  );
}
