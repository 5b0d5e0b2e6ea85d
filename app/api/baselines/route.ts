import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { baselineInput, createBaseline, listBaselines } from "@/lib/server/repositories/baselines";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/baselines → `{ asOf, baselines }`: every reference baseline, by metric then name. */
export const GET = withViewer("viewer", async () => json(await listBaselines(prisma())));

/**
 * POST /api/baselines `{name, metric, value, tolerance?, dataset?, settings?, sourceUrl?}` (the
 * `baseline.upsert` frame's fields and limits) — approvers create a baseline. 201 the baseline;
 * 400 bad body; 401/403 without the approver role or from another site; 409 `baseline_exists`
 * when the name is taken; 415 unless JSON.
 */
export const POST = withViewer("approver", async (request) => {
  const input = await parseJsonBody(request, baselineInput);
  if (input instanceof Response) return input;
  const result = await createBaseline(prisma(), input);
  return result.ok ? json(result.baseline, 201) : errorResponse(409, result.code, result.message);
});
