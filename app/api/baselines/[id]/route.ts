import {
  deleteBaselineRoute,
  patchBaselineRoute,
  type BaselineResponse,
} from "@/lib/api/baselines";
import { prisma } from "@/lib/server/db";
import { errorResponse, json } from "@/lib/server/http";
import { deleteBaseline, updateBaseline } from "@/lib/server/repositories/baselines";
import { apiRoute } from "@/lib/server/route-input";

/**
 * PATCH /api/baselines/:id with any of `{name, metric, value, tolerance, dataset, settings,
 * sourceUrl}` (null clears tolerance, dataset or sourceUrl) — approvers edit a baseline. 200 the
 * baseline; 400 bad id or body; 401/403 without the approver role or from another site; 404
 * unknown id; 409 `baseline_exists` when renamed onto another's name; 415 unless JSON.
 */
export const PATCH = apiRoute("approver", patchBaselineRoute, async ({ params, body }) => {
  const result = await updateBaseline(prisma(), params.id, body);
  if (!result.ok) return errorResponse(409, result.code, result.message);
  const baseline: BaselineResponse = result.baseline;
  return json(baseline);
});

/** DELETE /api/baselines/:id — approvers delete a baseline. 204; 400 bad id; 401/403; 404 unknown id. */
export const DELETE = apiRoute("approver", deleteBaselineRoute, async ({ params }) => {
  await deleteBaseline(prisma(), params.id);
  return new Response(null, { status: 204 });
});
