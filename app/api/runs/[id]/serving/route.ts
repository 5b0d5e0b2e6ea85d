import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRunServing } from "@/lib/server/repositories/serving";
import { resolveTimeRange, timeRangeParams } from "@/lib/time-range";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * GET /api/runs/:id/serving [?range=6h | from&to (epoch ms)] → server telemetry during the run (its host's serving runs, sweep
 * levels in time); a serving run over the given window (default: its last hour of data); 400 `invalid_query` for a bad range; 404 when unknown.
 */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const parsed = params.safeParse(await ctx.params);
    if (!parsed.success) return errorResponse(400, "invalid_query", describeIssues(parsed.error));
    const sp = new URL(request.url).searchParams;
    const given = sp.has("range") || sp.has("from") || sp.has("to");
    const range = timeRangeParams.safeParse({
      range: sp.get("range") ?? undefined,
      from: sp.get("from") ?? undefined,
      to: sp.get("to") ?? undefined,
    });
    if (!range.success) return errorResponse(400, "invalid_query", describeIssues(range.error));
    const now = new Date();
    return json(
      await getRunServing(
        prisma(),
        parsed.data.id,
        now,
        given ? resolveTimeRange(range.data, now.getTime()) : undefined,
      ),
    );
  },
);
