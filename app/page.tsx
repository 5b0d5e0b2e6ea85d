import type { Metadata } from "next";
import { headers } from "next/headers";

import { OVERVIEW_PAGE } from "@/lib/api/overview";
import { planListQuery, WAITING_LIMIT } from "@/lib/api/plans";
import { requirePageViewer } from "@/lib/server/auth/page";
import { pool, prisma } from "@/lib/server/db";
import { sharedOverview } from "@/lib/server/live/shared-overview";
import { inboxSummary } from "@/lib/server/repositories/inbox-summary";
import { listPlans } from "@/lib/server/repositories/plans";

import { OverviewView } from "./_components/overview-view";

export const metadata: Metadata = { title: "Overview" };

/** The URL this request reached us on (behind a proxy: X-Forwarded-*), for copy-paste commands. */
async function requestOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:8080";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

/**
 * `/`: the overview the team leaves open all day: plans an agent waits on, running and stale runs
 * with progress, hosts, events and alerts, recently finished runs. `?wall=1` shows it full screen, dark, for a TV.
 */
export default async function OverviewPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageViewer();
  const sp = await searchParams;
  const wall = sp.wall === "1" || sp.wall === "true";
  // ?page=2 … shows later pages of active runs (OVERVIEW_PAGE.defaultLimit a page).
  const pageNumber =
    typeof sp.page === "string" && /^\d{1,6}$/.test(sp.page) ? Math.max(1, Number(sp.page)) : 1;
  const now = new Date();
  const [initial, plans, inbox] = await Promise.all([
    // Computed for this render (a navigation is not a live refetch); stored for live viewers.
    sharedOverview({ offset: (pageNumber - 1) * OVERVIEW_PAGE.defaultLimit }).then((a) => a.value),
    listPlans(prisma(), planListQuery.parse({ limit: WAITING_LIMIT }), now),
    inboxSummary(pool(), now),
  ]);
  return (
    <OverviewView
      initial={initial}
      plans={plans}
      inbox={inbox}
      renderedAt={Date.parse(initial.asOf)}
      wall={wall}
      origin={await requestOrigin()}
    />
  );
}
