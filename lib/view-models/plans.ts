/**
 * Read models of plans: next steps an agent (or a person) proposed, and the decisions on them.
 * Plain JSON shapes; timestamps are ISO 8601 strings.
 */
import type { RunState } from "@/lib/view-models";

import type { SessionSource, TodoItemView, TodoProgressView } from "./sessions";

/** Plan states as stored, with `expired` also shown for a proposal past its expiry not yet swept. */
export type PlanState = "proposed" | "approved" | "changes_requested" | "rejected" | "expired";
/** Why a plan closed without a decision: the person answered in the terminal, or the agent ended. */
export type PlanClosedReasonView = "answered_in_terminal" | "agent_ended";

/** One proposed (or decided) next step. */
export interface PlanItemView {
  content: string;
  priority: "high" | "medium" | "low" | null;
}

/** The run a plan is about, as it is now. */
export interface PlanRunView {
  id: number;
  name: string;
  kind: string;
  host: string;
  status: "running" | "succeeded" | "failed" | "cancelled" | "ended";
  /** Stored status or the derived `stale`, at `asOf`. */
  state: RunState;
  lastPushAt: string;
  stallAfterS: number;
}

/** The session a plan belongs to, as it is now. */
export interface PlanSessionView {
  id: number;
  key: string;
  title: string | null;
  source: SessionSource;
  lastUpdateAt: string;
  progress: TodoProgressView | null;
  current: TodoItemView | null;
}

/** One row of the plan list. */
export interface PlanSummaryView {
  id: number;
  key: string;
  title: string;
  state: PlanState;
  /** Why an `expired` plan closed before its expiry: its agent stopped waiting; else null. */
  closedReason: PlanClosedReasonView | null;
  /** The host whose worker proposed it (and receives the decision). */
  host: string;
  proposedAt: string;
  expiresAt: string;
  itemCount: number;
  /** The agent session that proposed it: `source` says which agent, `project` the folder it runs in. */
  session: {
    id: number;
    title: string | null;
    key: string;
    source: SessionSource;
    project: string | null;
  } | null;
  /** Key of the plan this one revises (its proposer asked again after changes were requested); null for a first version. */
  supersedes: string | null;
  run: PlanRunView | null;
  /** The linked run's state when the plan was proposed (null without a run). */
  runStateAtProposal: string | null;
  /**
   * True when the linked run's state now differs from `runStateAtProposal` (e.g. it failed or went
   * stale since), or the run was deleted: the plan was written against a state that is gone.
   */
  basedOnStaleState: boolean;
  /** The latest decision's author and time; null while undecided. */
  decidedBy: string | null;
  decidedAt: string | null;
  /** The latest decision's comment (sent to the agent); null while undecided or without one. */
  decisionComment: string | null;
}

/** The plan list (`GET /api/plans`): pending first (newest first), then the rest, newest first. */
export interface PlanListView {
  asOf: string;
  /** Plans waiting for a decision (proposed and not past their expiry). */
  pendingCount: number;
  plans: PlanSummaryView[];
}

/** How one decided item relates to the proposal. */
export interface PlanItemChange {
  item: PlanItemView;
  /** `same` text (maybe other priority or place), `edited` (its text changed), or `added`. */
  change: "same" | "edited" | "added";
  /** Proposed text of an edited item. */
  fromContent: string | null;
  /** Proposed priority when it changed (`null` = had none); undefined when unchanged. */
  fromPriority?: PlanItemView["priority"];
  /** 1-based position in the proposal; null for added items. */
  fromPosition: number | null;
  /** Moved relative to the other kept items. */
  moved: boolean;
}

/** The decided items against the proposed ones. */
export interface PlanItemsDiff {
  /** One entry per decided item, in the decided order. */
  items: PlanItemChange[];
  /** Proposed items no longer there, with their 1-based proposed position. */
  removed: Array<{ item: PlanItemView; position: number }>;
  /** Nothing differs (same texts, priorities and order). */
  unchanged: boolean;
}

/** One decision on a plan: who, when, what, and the items as decided against the proposal. */
export interface PlanDecisionView {
  id: number;
  decision: Exclude<PlanState, "proposed">;
  decidedBy: string;
  decidedAt: string;
  comment: string | null;
  items: PlanItemView[];
  changes: PlanItemsDiff;
}

/** A plan with everything its page shows (`GET /api/plans/by-id/:id`). */
export interface PlanDetailView extends PlanSummaryView {
  asOf: string;
  rationale: string | null;
  /** The plan as the agent wrote it (markdown, untrusted; up to 200,000 characters), or null. */
  body: string | null;
  items: PlanItemView[];
  sessionDetail: PlanSessionView | null;
  /** Every decision, oldest first (a plan takes one, but all are kept). */
  decisions: PlanDecisionView[];
  /** This plan against the version it supersedes; null for a first version or when that one is gone. */
  versionDiff: PlanVersionDiffView | null;
}

/** One line of the body diff between a plan and the version it supersedes (1-based line numbers). */
export interface PlanBodyDiffLine {
  kind: "same" | "added" | "removed";
  text: string;
  /** Line in the previous version's body; null for an added line. */
  oldLine: number | null;
  /** Line in this version's body; null for a removed line. */
  newLine: number | null;
}

/** One item of this version against the previous one. */
export interface PlanVersionItemChange {
  /** `same` text and priority, `changed` (text or priority), `added`, or `removed` (then `item` is the old one). */
  kind: "same" | "changed" | "added" | "removed";
  item: PlanItemView;
  /** The previous version's item; null for an added one. */
  from: PlanItemView | null;
}

/** This version's items against the previous version's, in this version's order. */
export interface PlanVersionItemsDiff {
  changes: PlanVersionItemChange[];
  added: number;
  removed: number;
  changed: number;
}

/** A plan against the version it supersedes (`supersedes` key). */
export interface PlanVersionDiffView {
  previous: { id: number; key: string; title: string; state: PlanState; proposedAt: string };
  /** Line diff of the markdown bodies; null when the bodies differ too much to diff (then shown whole). */
  body: PlanBodyDiffLine[] | null;
  /** True when the body's text differs (line ends aside). */
  bodyChanged: boolean;
  items: PlanVersionItemsDiff;
}
