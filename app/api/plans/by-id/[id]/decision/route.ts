import { decidePlanRoute, type DecidePlanResponse } from "@/lib/api/plans";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { apiRoute } from "@/lib/server/route-input";

/**
 * POST /api/plans/by-id/:id/decision `{decision, items?, comment?}` — a person with the approver
 * role decides a proposed plan; the proposer receives it at once. 200 `{decision}` (the
 * `plan.decision` frame sent to the proposer); 400 bad body; 401/403 without the approver role or
 * from another site; 404 unknown plan; 409 when it was already decided (the message says by whom)
 * or has expired; 415 unless JSON.
 */
export const POST = apiRoute(
  "approver",
  decidePlanRoute,
  async ({ params, body }, _request, viewer) => {
    const answer: DecidePlanResponse = {
      decision: await decidePlan(pool(), params.id, body, viewer.name),
    };
    return json(answer);
  },
);
