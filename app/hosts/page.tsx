import type { Metadata } from "next";

import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listHosts } from "@/lib/server/repositories/hosts";

import { HostsView } from "./_components/hosts-view";

export const metadata: Metadata = { title: "Hosts" };
/** Live data: rendered per request, never prerendered at build. */
export const dynamic = "force-dynamic";

/** /hosts: every host with liveness, GPUs, CPU/RAM/disk and the last hour; live. */
export default async function HostsPage() {
  await requirePageViewer();
  const initial = await listHosts(prisma());
  return <HostsView initial={initial} renderedAt={Date.parse(initial.asOf)} />;
}
