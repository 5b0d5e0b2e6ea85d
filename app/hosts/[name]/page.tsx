import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { getHost } from "@/lib/server/repositories/hosts";
import { getHostServing } from "@/lib/server/repositories/serving";
import type { HostDetailView } from "@/lib/view-models/hosts";
import type { ServingWindowView } from "@/lib/view-models/serving";
import { HostDetail } from "./_components/host-detail";

/** Loads a host once per request (shared by metadata and page); null when unknown. */
const loadHost = cache(async (name: string): Promise<{ host: HostDetailView; serving: ServingWindowView; loadedAt: number } | null> => {
  if (name.length === 0 || name.length > 100) return null;
  try {
    const [host, serving] = await Promise.all([getHost(prisma(), name), getHostServing(prisma(), name)]);
    return { host, serving, loadedAt: Date.now() };
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
});

/** Page title: the host's name. */
export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  await requirePageViewer();
  const loaded = await loadHost((await params).name);
  return { title: loaded ? loaded.host.name : "Host not found" };
}

/** /hosts/:name: one host's GPUs, CPU, RAM, disk, last hour and runs; live. */
export default async function HostPage({ params }: { params: Promise<{ name: string }> }) {
  await requirePageViewer();
  const loaded = await loadHost((await params).name);
  if (!loaded) notFound();
  return <HostDetail initial={loaded.host} initialServing={loaded.serving} renderedAt={loaded.loadedAt} />;
}
