import { resolvePlanCommentRoute, type ResolvePlanCommentResponse } from "@/lib/api/plan-comments";
import { planTopic } from "@/lib/api/query-keys";
import { pool, prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { publishTopics } from "@/lib/server/live/publish";
import { setPlanCommentResolved } from "@/lib/server/repositories/plan-comments";
import { apiRoute } from "@/lib/server/route-input";

/**
 * PATCH /api/plans/by-id/:id/comments/:commentId `{resolved}` (approvers and admins) → the comment
 * as shown on plan `id`; 404 when that plan does not show it.
 */
export const PATCH = apiRoute(
  "approver",
  resolvePlanCommentRoute,
  async ({ params, body }, _request, viewer) => {
    const view: ResolvePlanCommentResponse = await setPlanCommentResolved(
      prisma(),
      params.id,
      params.commentId,
      body.resolved,
      viewer.name,
    );
    await publishTopics(pool(), [planTopic(params.id)]);
    return json(view);
  },
);
