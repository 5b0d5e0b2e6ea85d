import type { Metadata } from "next";

import { parseIds } from "@/lib/paths";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getRun } from "@/lib/server/repositories/runs";
import type { RunDetail } from "@/lib/view-models";

import { CompareView } from "./_components/compare-view";

export const metadata: Metadata = { title: "Compare runs" };

/** Loads the runs that exist (in `ids` order) and lists the ids that do not; with the load time. */
async function loadRuns(
  ids: number[],
): Promise<{ runs: RunDetail[]; missing: number[]; loadedAt: number }> {
  const loaded = await Promise.all(
    ids.map(async (id) => {
      try {
        return await getRun(prisma(), id);
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    }),
  );
  const runs = loaded.filter((r): r is RunDetail => r !== null);
  return {
    runs,
    missing: ids.filter((id) => !runs.some((r) => r.id === id)),
    loadedAt: Date.now(),
  };
}

/** /compare?ids=1,2,…: overlaid throughput sweeps and long-context curves, a projection per run, the config keys that differ; live. */
export default async function ComparePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageViewer();
  const { runs, missing, loadedAt } = await loadRuns(parseIds((await searchParams).ids));
  return (
    <CompareView
      key={runs.map((r) => r.id).join(",")}
      initial={runs}
      missing={missing}
      renderedAt={loadedAt}
    />
  );
}
