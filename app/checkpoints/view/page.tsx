import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { splitUri } from "@/components/checkpoints/checkpoint-uri";
import { checkpointsPath } from "@/lib/checkpoint-paths";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { getCheckpointLineage } from "@/lib/server/repositories/lineage";

import { CheckpointView } from "./_components/checkpoint-view";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The `uri` parameter (first when repeated), or null when absent, empty or over 2000 characters. */
async function uriOf(searchParams: SearchParams): Promise<string | null> {
  const v = (await searchParams).uri;
  const uri = Array.isArray(v) ? v[0] : v;
  return uri && uri.length <= 2000 ? uri : null;
}

/** Page title: the checkpoint's last path segment (`step-4000`). */
export async function generateMetadata({
  searchParams,
}: {
  searchParams: SearchParams;
}): Promise<Metadata> {
  const uri = await uriOf(searchParams);
  return { title: uri ? `Checkpoint ${splitUri(uri).tail}` : "Checkpoints" };
}

/** Loads the lineage with its load time (react-query's initialDataUpdatedAt). */
async function load(uri: string) {
  const initial = await getCheckpointLineage(prisma(), uri);
  return { initial, loadedAt: Date.now() };
}

/**
 * /checkpoints/view?uri=<encoded URI>: one checkpoint's lineage (the URI is a query parameter
 * because it holds slashes and colons). Without a uri: back to the list.
 */
export default async function CheckpointPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePageViewer();
  const uri = await uriOf(searchParams);
  if (!uri) redirect(checkpointsPath());
  const { initial, loadedAt } = await load(uri);
  return <CheckpointView key={uri} initial={initial} renderedAt={loadedAt} />;
}
