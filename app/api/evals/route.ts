import { describeIssues } from "@/lib/protocol";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, withViewer } from "@/lib/server/http";
import { evalOverviewQuery, getEvalOverview } from "@/lib/server/repositories/evals";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/evals?category=&dataset= → τ by checkpoint across runs, one line per training run and
 * draft settings (never summed across settings) (EvalOverviewView; see getEvalOverview for how checkpoints are attributed), with τ baselines.
 * Empty parameters mean "no filter". 400 for an over-long value.
 */
export const GET = withViewer("viewer", async (request) => {
  const sp = new URL(request.url).searchParams;
  const q = evalOverviewQuery.safeParse({
    category: sp.get("category") || undefined,
    dataset: sp.get("dataset") || undefined,
  });
  if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
  return json(await getEvalOverview(prisma(), q.data));
});
