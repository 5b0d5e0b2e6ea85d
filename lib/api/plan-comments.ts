import { z } from "zod";

import type { PlanCommentsView, PlanCommentView } from "@/lib/view-models/plan-comments";

import { defineRoute, idParam, idParams } from "./contract";

/** Contracts of line comments on plans (`/api/plans/by-id/:id/comments…`). */

/** `GET /api/plans/by-id/:id/comments` (viewers) → the comments shown on this version. */
export const listPlanCommentsRoute = defineRoute({
  route: "GET /api/plans/by-id/:id/comments",
  params: idParams("plan", 2_147_483_647),
});
/** Answer of {@link listPlanCommentsRoute}. */
export type ListPlanCommentsResponse = PlanCommentsView;

/** Longest comment, in characters. */
export const MAX_COMMENT_CHARS = 5_000;

/** A new comment: the 1-based line of this version's body and the text (trimmed, not blank). */
export const addPlanCommentBody = z.strictObject({
  line: z.number().int().min(1).max(1_000_000),
  body: z.string().trim().min(1, "comment must not be blank").max(MAX_COMMENT_CHARS),
});
/** Body sent to {@link addPlanCommentRoute}. */
export type AddPlanCommentRequest = z.input<typeof addPlanCommentBody>;

/**
 * `POST /api/plans/by-id/:id/comments` (approvers and admins) → 201 the comment. 400
 * `invalid_body` when the plan has no such line or the line is blank.
 */
export const addPlanCommentRoute = defineRoute({
  route: "POST /api/plans/by-id/:id/comments",
  params: idParams("plan", 2_147_483_647),
  body: addPlanCommentBody,
});
/** Answer of {@link addPlanCommentRoute}. */
export type AddPlanCommentResponse = PlanCommentView;

/** `{resolved}`: mark a comment resolved (true) or open again (false). */
export const resolvePlanCommentBody = z.strictObject({ resolved: z.boolean() });
/** Body sent to {@link resolvePlanCommentRoute}. */
export type ResolvePlanCommentRequest = z.input<typeof resolvePlanCommentBody>;

/**
 * `PATCH /api/plans/by-id/:id/comments/:commentId` (approvers and admins) → the comment as shown
 * on plan `id`; 404 when it is not shown there.
 */
export const resolvePlanCommentRoute = defineRoute({
  route: "PATCH /api/plans/by-id/:id/comments/:commentId",
  params: z.object({
    id: idParam("plan", 2_147_483_647),
    commentId: idParam("comment", 2_147_483_647),
  }),
  body: resolvePlanCommentBody,
});
/** Answer of {@link resolvePlanCommentRoute}. */
export type ResolvePlanCommentResponse = PlanCommentView;
