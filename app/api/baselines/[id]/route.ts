import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { baselinePatch, deleteBaseline, updateBaseline } from "@/lib/server/repositories/baselines";

const params = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

/**
 * PATCH /api/baselines/:id with any of `{name, metric, value, tolerance, dataset, settings,
 * sourceUrl}` (null clears tolerance, dataset or sourceUrl) — approvers edit a baseline. 200 the
 * baseline; 400 bad id or body; 401/403 without the approver role or from another site; 404
 * unknown id; 409 `baseline_exists` when renamed onto another's name; 415 unless JSON.
 */
export const PATCH = withViewer(
  "approver",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    const patch = await parseJsonBody(request, baselinePatch);
    if (patch instanceof Response) return patch;
    const result = await updateBaseline(prisma(), p.data.id, patch);
    return result.ok ? json(result.baseline) : errorResponse(409, result.code, result.message);
  },
);

/** DELETE /api/baselines/:id — approvers delete a baseline. 204; 400 bad id; 401/403; 404 unknown id. */
export const DELETE = withViewer(
  "approver",
  async (_request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    await deleteBaseline(prisma(), p.data.id);
    return new Response(null, { status: 204 });
  },
);
