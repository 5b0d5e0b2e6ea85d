import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { getRunEvals, runEvalsQuery } from "@/lib/server/repositories/evals";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * GET /api/runs/:id/evals?draft=<draft settings key> → the run's evaluations (RunEvalsView):
 * checkpoints with τ from raw counts, per-category τ, per-prompt distributions, table rows, draft
 * settings, τ baselines. Without `draft`, the settings with the most verify steps. 400
 * `invalid_query` for a bad id, or a `draft` key the run's results do not have (the message lists
 * the known keys); 404 unknown run.
 */
export const GET = withViewer(
  "viewer",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const p = params.safeParse(await ctx.params);
    if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
    const q = runEvalsQuery.safeParse({
      draft: new URL(request.url).searchParams.get("draft") ?? undefined,
    });
    if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
    const view = await getRunEvals(prisma(), p.data.id, q.data);
    // A link with a stale or mistyped key must not silently show other settings' τ.
    if (q.data.draft !== undefined && view.draft !== q.data.draft) {
      const known = view.draftSettings.map((d) => d.key);
      const list =
        known.length === 0 ? "the run has no eval results" : `known keys: ${known.join(", ")}`;
      return errorResponse(
        400,
        "invalid_query",
        `unknown draft settings key ${JSON.stringify(q.data.draft)}; ${list}`,
      );
    }
    return json(view);
  },
);
