/** Read models of line comments on plans (GET /api/plans/by-id/:id/comments). ISO 8601 times. */

/** One comment as shown on one version of a plan. */
export interface PlanCommentView {
  id: number;
  /** 1-based line of this version's body it is anchored to; null when outdated. */
  line: number | null;
  /** The line's text when the comment was written (shown quoted when outdated). */
  lineText: string;
  /** Its line changed or vanished in a later version: it no longer anchors anywhere. */
  outdated: boolean;
  resolved: boolean;
  body: string;
  author: string;
  createdAt: string;
  resolvedBy: string | null;
  resolvedAt: string | null;
  /** The plan version it was written on: its id, and its 1-based number in this plan's chain. */
  writtenOn: { planId: number; version: number; line: number };
}

/** Comments of one plan version: its own and those carried over from the versions it revises. */
export interface PlanCommentsView {
  planId: number;
  /** This plan's 1-based number in its revision chain. */
  version: number;
  /** Anchored ones by line, then outdated ones; oldest first within a line. */
  comments: PlanCommentView[];
}
