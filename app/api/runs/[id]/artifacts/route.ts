import { runArtifactsRoute, type RunArtifactsResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getRunArtifactsPage } from "@/lib/server/repositories/pipeline-artifacts";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/runs/:id/artifacts?offset=&limit= → `{ artifacts, total }`, newest first; 400 `invalid_query`, 404 unknown run. */
export const GET = apiRoute("viewer", runArtifactsRoute, async ({ params, query }) => {
  const page: RunArtifactsResponse = await getRunArtifactsPage(
    prisma(),
    params.id,
    query.offset,
    query.limit,
  );
  return json(page);
});
