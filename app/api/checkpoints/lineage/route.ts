import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getCheckpointLineage } from "@/lib/server/repositories/lineage";

const query = z.object({ uri: z.string().min(1).max(2000) });

/**
 * GET /api/checkpoints/lineage?uri=s3%3A%2F%2F… → the checkpoint's producing runs, eval runs and
 * benchmark runs (empty sections, not 404, for a URI nothing references yet); 400 `invalid_query`
 * without a uri.
 */
export const GET = withViewer("viewer", async (request) => {
  const q = query.safeParse({ uri: new URL(request.url).searchParams.get("uri") ?? undefined });
  if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
  return json(await getCheckpointLineage(prisma(), q.data.uri));
});
