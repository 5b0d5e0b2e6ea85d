import { z } from "zod";
import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getHostServing } from "@/lib/server/repositories/serving";

const params = z.object({ name: z.string().min(1).max(100) });

/** GET /api/hosts/:name/serving → the last hour of the host's serving runs (scraped /metrics); 404 when unknown. */
export const GET = withViewer("viewer", async (_request, _viewer, ctx: { params: Promise<{ name: string }> }) => {
  const parsed = params.safeParse(await ctx.params);
  if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
  return json(await getHostServing(prisma(), parsed.data.name));
});
