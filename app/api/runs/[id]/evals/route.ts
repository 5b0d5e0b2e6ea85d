import { runEvalsRoute, type RunEvalsResponse } from "@/lib/api/runs";
import { prisma } from "@/lib/server/db";
import { errorResponse, json } from "@/lib/server/http";
import { getRunEvals } from "@/lib/server/repositories/evals";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/runs/:id/evals?draft=<draft settings key> → the run's evaluations (RunEvalsView):
 * checkpoints with τ from raw counts, per-category τ, per-prompt distributions, table rows, draft
 * settings, τ baselines. Without `draft`, the settings with the most verify steps. 400
 * `invalid_query` for a bad id, or a `draft` key the run's results do not have (the message lists
 * the known keys); 404 unknown run.
 */
export const GET = apiRoute("viewer", runEvalsRoute, async ({ params, query }) => {
  const view: RunEvalsResponse = await getRunEvals(prisma(), params.id, query);
  // A link with a stale or mistyped key must not silently show other settings' τ.
  if (query.draft !== undefined && view.draft !== query.draft) {
    const known = view.draftSettings.map((d) => d.key);
    const list =
      known.length === 0 ? "the run has no eval results" : `known keys: ${known.join(", ")}`;
    return errorResponse(
      400,
      "invalid_query",
      `unknown draft settings key ${JSON.stringify(query.draft)}; ${list}`,
    );
  }
  return json(view);
});
