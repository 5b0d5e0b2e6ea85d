import { evalOverviewRoute, type EvalOverviewResponse } from "@/lib/api/evals";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getEvalOverview } from "@/lib/server/repositories/evals";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/evals?category=&dataset= → τ by checkpoint across runs, one line per training run and
 * draft settings (never summed across settings) (EvalOverviewView; see getEvalOverview for how checkpoints are attributed), with τ baselines.
 * Empty parameters mean "no filter". 400 for an over-long value.
 */
export const GET = apiRoute("viewer", evalOverviewRoute, async ({ query }) => {
  const answer: EvalOverviewResponse = await getEvalOverview(prisma(), query);
  return json(answer);
});
