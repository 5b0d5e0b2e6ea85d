import { z } from "zod";
import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getHost } from "@/lib/server/repositories/hosts";

const params = z.object({ name: z.string().min(1).max(100) });

/** GET /api/hosts/:name → the host with per-GPU last hour and its latest runs; 404 when unknown. */
export const GET = withViewer("viewer", async (_request, _viewer, ctx: { params: Promise<{ name: string }> }) => {
  const parsed = params.safeParse(await ctx.params);
  if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
  return json(await getHost(prisma(), parsed.data.name));
});
