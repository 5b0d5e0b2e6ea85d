import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import {
  DEFAULT_CHECKPOINT_LIMIT,
  listCheckpoints,
  MAX_CHECKPOINT_LIMIT,
} from "@/lib/server/repositories/lineage";

const query = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_CHECKPOINT_LIMIT).default(DEFAULT_CHECKPOINT_LIMIT),
});

/** GET /api/checkpoints?limit=100 → `{checkpoints, limit}`: checkpoints newest first with producer, eval and benchmark counts; 400 `invalid_query`. */
export const GET = withViewer("viewer", async (request) => {
  const q = query.safeParse({ limit: new URL(request.url).searchParams.get("limit") ?? undefined });
  if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
  return json(await listCheckpoints(prisma(), { limit: q.data.limit }));
});
