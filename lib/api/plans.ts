import { z } from "zod";

import { PLAN_PRIORITIES, type PlanDecisionFrame } from "@/lib/protocol";
import type { PlanDetailView, PlanListView } from "@/lib/view-models/plans";

import { defineRoute, idParams, waitQuery } from "./contract";

/** Contracts of the plan routes (`/api/plans…`). */

/**
 * Query of `GET /api/plans`: `session` (id) keeps the plans linked to one session; `limit` 0–500
 * (default 100; 0 returns only `pendingCount`).
 */
export const planListQuery = z.object({
  session: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  /** Only the plans about this run (its annotations). */
  run: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(0).max(500).default(100),
});
/** Parsed {@link planListQuery}. */
export type PlanListQuery = z.infer<typeof planListQuery>;

/** `GET /api/plans?session&run&limit` → pending plans first, then the rest, newest first. */
export const listPlansRoute = defineRoute({ route: "GET /api/plans", query: planListQuery });
/** Answer of {@link listPlansRoute}. */
export type ListPlansResponse = PlanListView;

/** Path parameters of `/api/plans/by-id/:id…` (400 "plan id must be a positive integer"). */
export const planIdParams = idParams("plan");

/** `GET /api/plans/by-id/:id` → the plan with its items, links and decisions. */
export const getPlanRoute = defineRoute({
  route: "GET /api/plans/by-id/:id",
  params: planIdParams,
});
/** Answer of {@link getPlanRoute}. */
export type PlanResponse = PlanDetailView;

/** What a person decides on a plan (HTTP body of POST /api/plans/by-id/:id/decision). */
export const decisionInput = z.strictObject({
  decision: z.enum(["approved", "changes_requested", "rejected"]),
  /** Edited items (approve with edits); default: the items as proposed. */
  items: z
    .array(
      z.strictObject({
        content: z.string().min(1).max(20_000),
        priority: z.enum(PLAN_PRIORITIES).optional(),
      }),
    )
    .min(1)
    .max(200)
    .optional(),
  comment: z.string().max(20_000).optional(),
});
/** Parsed {@link decisionInput}. */
export type DecisionInput = z.infer<typeof decisionInput>;

/** The decision body, with a non-blank comment required to request changes (blank comments dropped). */
export const decisionBody = decisionInput
  .transform((d) => ({ ...d, comment: d.comment?.trim() ? d.comment.trim() : undefined }))
  .refine((d) => d.decision !== "changes_requested" || d.comment !== undefined, {
    message: "a comment is required to request changes",
    path: ["comment"],
  });

/** `POST /api/plans/by-id/:id/decision` (approvers) → `{decision}`: the frame sent to the proposer. */
export const decidePlanRoute = defineRoute({
  route: "POST /api/plans/by-id/:id/decision",
  params: planIdParams,
  body: decisionBody,
});
/** Answer of {@link decidePlanRoute}. */
export interface DecidePlanResponse {
  decision: PlanDecisionFrame;
}

/** `GET /api/plans/:key/decision?wait` (the proposer's worker token) → `{status, decision}`. */
export const planDecisionRoute = defineRoute({
  route: "GET /api/plans/:key/decision",
  params: z.object({ key: z.string() }),
  query: waitQuery,
});
/** Answer of {@link planDecisionRoute}. */
export type PlanDecisionResponse =
  | { status: "proposed"; decision: null }
  | { status: PlanDecisionFrame["decision"]; decision: PlanDecisionFrame };

/** How many plans the overview's "waiting for a person" card reads (pending ones come first). */
export const WAITING_LIMIT = 20;
