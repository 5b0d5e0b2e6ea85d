import {
  createBaselineRoute,
  listBaselinesRoute,
  type BaselineResponse,
  type ListBaselinesResponse,
} from "@/lib/api/baselines";
import { prisma } from "@/lib/server/db";
import { errorResponse, json } from "@/lib/server/http";
import { createBaseline, listBaselines } from "@/lib/server/repositories/baselines";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/baselines → `{ asOf, baselines }`: every reference baseline, by metric then name. */
export const GET = apiRoute("viewer", listBaselinesRoute, async () => {
  const answer: ListBaselinesResponse = await listBaselines(prisma());
  return json(answer);
});

/**
 * POST /api/baselines `{name, metric, value, tolerance?, dataset?, settings?, sourceUrl?}` (the
 * `baseline.upsert` frame's fields and limits) — approvers create a baseline. 201 the baseline;
 * 400 bad body; 401/403 without the approver role or from another site; 409 `baseline_exists`
 * when the name is taken; 415 unless JSON.
 */
export const POST = apiRoute("approver", createBaselineRoute, async ({ body }) => {
  const result = await createBaseline(prisma(), body);
  if (!result.ok) return errorResponse(409, result.code, result.message);
  const baseline: BaselineResponse = result.baseline;
  return json(baseline, 201);
});
