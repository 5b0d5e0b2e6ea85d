import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import {
  addPlanCommentRoute,
  listPlanCommentsRoute,
  resolvePlanCommentRoute,
  type AddPlanCommentRequest,
  type AddPlanCommentResponse,
  type ListPlanCommentsResponse,
  type ResolvePlanCommentResponse,
} from "@/lib/api/plan-comments";

/** The line comments shown on plan `planId` (`GET /api/plans/by-id/:id/comments`). @throws ApiError. */
export function fetchPlanComments(
  planId: number,
  signal?: AbortSignal,
): Promise<ListPlanCommentsResponse> {
  return fetchJson(apiPath(listPlanCommentsRoute, { id: planId }), { signal });
}

/** Adds a comment on a line of plan `planId`. @throws ApiError (400 no such line, 403 viewer). */
export function postPlanComment(
  planId: number,
  body: AddPlanCommentRequest,
): Promise<AddPlanCommentResponse> {
  return sendJson("POST", apiPath(addPlanCommentRoute, { id: planId }), body);
}

/** Marks a comment resolved or open again. @throws ApiError (404, 403 viewer). */
export function patchPlanCommentResolved(
  planId: number,
  commentId: number,
  resolved: boolean,
): Promise<ResolvePlanCommentResponse> {
  return sendJson("PATCH", apiPath(resolvePlanCommentRoute, { id: planId, commentId }), {
    resolved,
  });
}
