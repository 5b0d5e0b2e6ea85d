import { z } from "zod";

import { describeIssues, step64 } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { DEFAULT_MAX_POINTS, getRunMetrics } from "@/lib/server/metric-store";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
const query = z
  .object({
    maxPoints: z.coerce.number().int().min(10).max(20_000).default(DEFAULT_MAX_POINTS),
    key: z.array(z.string().min(1).max(200)).max(100).optional(),
    fromStep: step64.optional(),
    toStep: step64.optional(),
  })
  .refine(
    (q) =>
      q.fromStep === undefined || q.toStep === undefined || BigInt(q.fromStep) <= BigInt(q.toStep),
    { message: "fromStep must not be above toStep", path: ["fromStep"] },
  );

/** GET /api/runs/:id/metrics?maxPoints=1000&key=loss&key=lr&fromStep=0&toStep=5000 → every (or the named) metric series in the step range (inclusive), at most maxPoints finite points each (+ every NaN/±Infinity); 400 invalid_query, 404 when unknown. */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    const sp = new URL(request.url).searchParams;
    const keys = sp.getAll("key");
    const q = query.safeParse({
      maxPoints: sp.get("maxPoints") ?? undefined,
      key: keys.length ? keys : undefined,
      fromStep: sp.get("fromStep") ?? undefined,
      toStep: sp.get("toStep") ?? undefined,
    });
    if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
    const { fromStep, toStep } = q.data;
    return json(
      await getRunMetrics(prisma(), p.data.id, {
        maxPoints: q.data.maxPoints,
        keys: q.data.key,
        fromStep: fromStep === undefined ? undefined : BigInt(fromStep),
        toStep: toStep === undefined ? undefined : BigInt(toStep),
      }),
    );
  },
);
