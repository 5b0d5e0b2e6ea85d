import { checkpointLineageRoute, type CheckpointLineageResponse } from "@/lib/api/checkpoints";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getCheckpointLineage } from "@/lib/server/repositories/lineage";
import { apiRoute } from "@/lib/server/route-input";

/**
 * GET /api/checkpoints/lineage?uri=s3%3A%2F%2F… → the checkpoint's producing runs, eval runs and
 * benchmark runs (empty sections, not 404, for a URI nothing references yet); 400 `invalid_query`
 * without a uri.
 */
export const GET = apiRoute("viewer", checkpointLineageRoute, async ({ query }) => {
  const answer: CheckpointLineageResponse = await getCheckpointLineage(prisma(), query.uri);
  return json(answer);
});
