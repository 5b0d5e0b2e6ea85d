import { listCheckpointsRoute, type ListCheckpointsResponse } from "@/lib/api/checkpoints";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { listCheckpoints } from "@/lib/server/repositories/lineage";
import { apiRoute } from "@/lib/server/route-input";

/** GET /api/checkpoints?limit=100 → `{checkpoints, limit}`: checkpoints newest first with producer, eval and benchmark counts; 400 `invalid_query`. */
export const GET = apiRoute("viewer", listCheckpointsRoute, async ({ query }) => {
  const answer: ListCheckpointsResponse = await listCheckpoints(prisma(), { limit: query.limit });
  return json(answer);
});
