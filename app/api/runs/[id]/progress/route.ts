import { runProgressRoute, type RunProgressResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getRunProgress } from "@/lib/server/repositories/pipelines";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs/:id/progress → the run's progress, workers, S3 panel, uploads over time, events, artifacts, command; 404 when unknown. */
export const GET = apiRoute("viewer", runProgressRoute, async ({ params }) => {
  const progress: RunProgressResponse = await getRunProgress(prisma(), params.id);
  return json(progress);
});
