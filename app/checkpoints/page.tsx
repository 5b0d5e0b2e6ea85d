import type { Metadata } from "next";

import { DEFAULT_CHECKPOINT_LIMIT } from "@/lib/api/checkpoints";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listCheckpoints } from "@/lib/server/repositories/lineage";

import { CheckpointsView } from "./_components/checkpoints-view";

export const metadata: Metadata = { title: "Checkpoints" };

/** Loads the list with its load time (react-query's initialDataUpdatedAt). */
async function load() {
  const initial = await listCheckpoints(prisma(), { limit: DEFAULT_CHECKPOINT_LIMIT });
  return { initial, loadedAt: Date.now() };
}

/** /checkpoints: every checkpoint newest first, with who produced, scored and served it; live. */
export default async function CheckpointsPage() {
  await requirePageViewer();
  const { initial, loadedAt } = await load();
  return <CheckpointsView initial={initial} renderedAt={loadedAt} />;
}
