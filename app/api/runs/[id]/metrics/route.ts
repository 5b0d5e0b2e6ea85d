import { runMetricsRoute, type RunMetricsResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { DEFAULT_MAX_POINTS, getRunMetrics } from "@/lib/server/metric-store";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs/:id/metrics?maxPoints=1000&key=loss&key=lr&fromStep=0&toStep=5000 → every (or the named) metric series in the step range (inclusive), at most maxPoints finite points each (+ every NaN/±Infinity); 400 invalid_query, 404 when unknown. */
export const GET = apiRoute("viewer", runMetricsRoute, async ({ params, query }) => {
  const { fromStep, toStep } = query;
  const metrics: RunMetricsResponse = await getRunMetrics(prisma(), params.id, {
    maxPoints: query.maxPoints ?? DEFAULT_MAX_POINTS,
    keys: query.key,
    fromStep: fromStep === undefined ? undefined : BigInt(fromStep),
    toStep: toStep === undefined ? undefined : BigInt(toStep),
  });
  return json(metrics);
});
