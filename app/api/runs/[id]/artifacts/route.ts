import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { ARTIFACT_PAGE_MAX, getRunArtifactsPage } from "@/lib/server/repositories/pipelines";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
const search = z.strictObject({
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce.number().int().min(1).max(ARTIFACT_PAGE_MAX).default(ARTIFACT_PAGE_MAX),
});

/** GET /api/runs/:id/artifacts?offset=&limit= → `{ artifacts, total }`, newest first; 400 `invalid_query`, 404 unknown run. */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    const q = search.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
    return json(await getRunArtifactsPage(prisma(), p.data.id, q.data.offset, q.data.limit));
  },
);
