import { getRunRoute, patchRunRoute, type RunResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getRun, updateRun } from "@/lib/server/repositories/runs";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs/:id → the run with its `benchmarkPoints`; 404 when unknown. */
export const GET = apiRoute("viewer", getRunRoute, async ({ params }) => {
  const run: RunResponse = await getRun(prisma(), params.id);
  return json(run);
});

/**
 * PATCH /api/runs/:id `{name?, tags?, notes?, archived?}` → the updated run. Approvers and admins
 * only (403 otherwise; cookie requests must be same-origin); 400 `invalid_body`, 404 unknown run.
 */
export const PATCH = apiRoute(
  "approver",
  patchRunRoute,
  async ({ params, body }, _request, viewer) => {
    const run: RunResponse = await updateRun(
      prisma(),
      params.id,
      body,
      viewer.email ?? viewer.name,
    );
    return json(run);
  },
);
