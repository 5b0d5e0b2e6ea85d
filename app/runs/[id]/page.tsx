import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getRun } from "@/lib/server/repositories/runs";
import type { RunDetail } from "@/lib/view-models";
import { RunDetailView } from "./_components/run-detail-view";

/** Loads a run once per request (shared by metadata and page); null when the id is invalid or unknown. */
const loadRun = cache(async (id: string): Promise<{ run: RunDetail; loadedAt: number } | null> => {
  const runId = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(runId) || runId <= 0) return null;
  try {
    return { run: await getRun(prisma(), runId), loadedAt: Date.now() };
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
});

/** Page title: the run's name. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const loaded = await loadRun((await params).id);
  return { title: loaded ? loaded.run.name : "Run not found" };
}

/** /runs/:id: one run with its configuration, headline figures, charts and every point; live. */
export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const loaded = await loadRun((await params).id);
  if (!loaded) notFound();
  return <RunDetailView initial={loaded.run} renderedAt={loaded.loadedAt} />;
}
