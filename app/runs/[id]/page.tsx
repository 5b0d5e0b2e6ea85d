import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";

import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getRunProgress } from "@/lib/server/repositories/pipelines";
import { getRun } from "@/lib/server/repositories/runs";
import { getRunServing } from "@/lib/server/repositories/serving";
import {
  parseTimeRange,
  resolveTimeRange,
  timeRangeSearch,
  type TimeRange,
} from "@/lib/time-range";
import type { RunDetail } from "@/lib/view-models";
import type { RunProgressView } from "@/lib/view-models/pipeline";
import type { RunServingView } from "@/lib/view-models/serving";

import { RunDetailView } from "./_components/run-detail-view";

interface LoadedRun {
  run: RunDetail;
  progress: RunProgressView;
  serving: RunServingView;
  loadedAt: number;
}

/**
 * Loads a run with its progress and server telemetry once per request (shared by metadata and page); null when the id
 * is invalid or unknown. Metric series are not loaded here: the page's shell streams without
 * waiting for them and the charts fetch `GET /api/runs/:id/metrics` from the browser.
 */
const loadRun = cache(
  async (id: string, range: TimeRange | null = null): Promise<LoadedRun | null> => {
    const runId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(runId) || runId <= 0) return null;
    try {
      const now = new Date();
      const [run, progress, serving] = await Promise.all([
        getRun(prisma(), runId, now),
        getRunProgress(prisma(), runId, now),
        getRunServing(
          prisma(),
          runId,
          now,
          range ? resolveTimeRange(range, now.getTime()) : undefined,
        ),
      ]);
      return { run, progress, serving, loadedAt: Date.now() };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  },
);

/** Page title: the run's name. */
export async function generateMetadata({
  params,
}: {
  params: Promise<{ id: string }>;
}): Promise<Metadata> {
  await requirePageViewer();
  const loaded = await loadRun((await params).id);
  return { title: loaded ? loaded.run.name : "Run not found" };
}

/**
 * /runs/:id: one run, live. Benchmark runs: headline figures, charts and every point; pipeline
 * runs: progress, workers, S3 panel and uploads over time; training runs: one chart per metric; serving runs: telemetry
 * over the URL's time range (`range=6h` or `from`/`to`, epoch ms);
 * all: events, artifacts and the `pitwall run` command when present.
 */
export default async function RunPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const viewer = await requirePageViewer();
  // A serving run's charts follow the URL's time range (range=6h or from/to); without one, its last hour of data.
  const sp = await searchParams;
  const range =
    sp.range !== undefined || sp.from !== undefined || sp.to !== undefined
      ? parseTimeRange(sp)
      : null;
  const loaded = await loadRun(
    (await params).id,
    range && timeRangeSearch(range) !== "" ? range : null,
  );
  if (!loaded) notFound();
  // Viewers see no edit buttons; the API enforces the role as well.
  const canEdit = viewer.kind === "user" && hasRole(viewer.role, "approver");
  return (
    <RunDetailView
      range={range}
      initial={loaded.run}
      initialProgress={loaded.progress}
      initialServing={loaded.serving}
      renderedAt={loaded.loadedAt}
      canEdit={canEdit}
    />
  );
}
