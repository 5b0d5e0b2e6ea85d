import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";

import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getHost } from "@/lib/server/repositories/hosts";
import { getHostServing } from "@/lib/server/repositories/serving";
import { parseTimeRange, resolveTimeRange, type TimeRange } from "@/lib/time-range";
import type { HostDetailView } from "@/lib/view-models/hosts";
import type { ServingWindowView } from "@/lib/view-models/serving";

import { HostDetail } from "./_components/host-detail";

/** Loads a host once per request (shared by metadata and page); null when unknown. */
const loadHost = cache(
  async (
    name: string,
    range: TimeRange = { kind: "preset", preset: "1h" },
  ): Promise<{ host: HostDetailView; serving: ServingWindowView; loadedAt: number } | null> => {
    if (name.length === 0 || name.length > 100) return null;
    try {
      const now = new Date();
      const window = resolveTimeRange(range, now.getTime());
      const [host, serving] = await Promise.all([
        getHost(prisma(), name, now, window),
        getHostServing(prisma(), name, now, window),
      ]);
      return { host, serving, loadedAt: now.getTime() };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  },
);

/** Page title: the host's name. */
export async function generateMetadata({
  params,
}: {
  params: Promise<{ name: string }>;
}): Promise<Metadata> {
  await requirePageViewer();
  const loaded = await loadHost((await params).name);
  return { title: loaded ? loaded.host.name : "Host not found" };
}

/** /hosts/:name?range=6h (or from/to, epoch ms): one host's GPUs, CPU, RAM, disk over the window (default the last hour) and runs; live. */
export default async function HostPage({
  params,
  searchParams,
}: {
  params: Promise<{ name: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageViewer();
  const range = parseTimeRange(await searchParams);
  const loaded = await loadHost((await params).name, range);
  if (!loaded) notFound();
  return (
    <HostDetail
      initial={loaded.host}
      initialServing={loaded.serving}
      renderedAt={loaded.loadedAt}
      range={range}
    />
  );
}
