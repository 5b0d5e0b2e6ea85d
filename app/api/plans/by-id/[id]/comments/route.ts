import {
  addPlanCommentRoute,
  listPlanCommentsRoute,
  type AddPlanCommentResponse,
  type ListPlanCommentsResponse,
} from "@/lib/api/plan-comments";
import { planTopic } from "@/lib/api/query-keys";
import { pool, prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { publishTopics } from "@/lib/server/live/publish";
import { addPlanComment, listPlanComments } from "@/lib/server/repositories/plan-comments";
import { apiRoute } from "@/lib/server/route-input";

/**
 * GET /api/plans/by-id/:id/comments → the line comments shown on this plan version (its own and
 * those carried over from the versions it revises, re-anchored or outdated); 404 unknown plan.
 */
export const GET = apiRoute("viewer", listPlanCommentsRoute, async ({ params }) => {
  const view: ListPlanCommentsResponse = await listPlanComments(prisma(), params.id);
  return json(view);
});

/**
 * POST /api/plans/by-id/:id/comments `{line, body}` (approvers and admins) → 201 the comment; 400
 * when the plan has no such line or it is blank; 404 unknown plan.
 */
export const POST = apiRoute(
  "approver",
  addPlanCommentRoute,
  async ({ params, body }, _request, viewer) => {
    const view: AddPlanCommentResponse = await addPlanComment(
      prisma(),
      params.id,
      body,
      viewer.name,
    );
    await publishTopics(pool(), [planTopic(params.id)]);
    return json(view, 201);
  },
);
