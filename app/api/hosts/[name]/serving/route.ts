import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getHostServing } from "@/lib/server/repositories/serving";
import { resolveTimeRange, timeRangeParams } from "@/lib/time-range";

const params = z.object({ name: z.string().min(1).max(100) });

/** GET /api/hosts/:name/serving ?range=6h | from&to (epoch ms) → the window (default last hour) of the host's serving runs (scraped /metrics); 400 `invalid_query` for a bad range; 404 when unknown. */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ name: string }> }) => {
    const parsed = params.safeParse(await ctx.params);
    if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
    const sp = new URL(request.url).searchParams;
    const range = timeRangeParams.safeParse({
      range: sp.get("range") ?? undefined,
      from: sp.get("from") ?? undefined,
      to: sp.get("to") ?? undefined,
    });
    if (!range.success) return errorResponse(400, "invalid_query", describeIssues(range.error));
    const now = new Date();
    return json(
      await getHostServing(
        prisma(),
        parsed.data.name,
        now,
        resolveTimeRange(range.data, now.getTime()),
      ),
    );
  },
);
