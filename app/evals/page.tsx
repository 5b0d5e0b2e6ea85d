import type { Metadata } from "next";

import { evalOverviewQuery } from "@/lib/api/evals";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { getEvalOverview } from "@/lib/server/repositories/evals";

import { EvalsView } from "./_components/evals-view";

export const metadata: Metadata = { title: "Evals" };

/** First value of a search parameter, or undefined when absent or empty. */
function param(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s : undefined;
}

/**
 * /evals?category=&dataset=: acceptance length τ by checkpoint with one line per training run
 * (and per draft settings when a run has several; checkpoints attributed to the run that produced them, see getEvalOverview) against the τ
 * baselines, τ by category at each run's latest checkpoint, and the runs; live on `evals` and
 * `baselines`. Invalid filter values are ignored.
 */
export default async function EvalsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageViewer();
  const sp = await searchParams;
  const parsed = evalOverviewQuery.safeParse({
    category: param(sp.category),
    dataset: param(sp.dataset),
  });
  const filters = parsed.success ? parsed.data : {};
  const initial = await getEvalOverview(prisma(), filters);
  return <EvalsView initial={initial} filters={filters} renderedAt={Date.parse(initial.asOf)} />;
}
