import type { Metadata } from "next";
import { headers } from "next/headers";

import { runListQuery } from "@/lib/api/runs";
import { parseRunListQuery, type RunListQuery } from "@/lib/paths";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { ValidationError } from "@/lib/server/errors";
import { listRuns } from "@/lib/server/repositories/run-list";
import { listSavedViews } from "@/lib/server/repositories/saved-views";
import type { RunListPage } from "@/lib/view-models";

import { RunsView } from "./_components/runs-view";

export const metadata: Metadata = { title: "Runs" };

const PAGE_SIZE = 50;

/** The URL this request reached us on (behind a proxy: X-Forwarded-*), for copy-paste commands. */
async function requestOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:8080";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

/** The API filters of a page query: its metric columns as `metrics`, 50 runs a page. */
function listFilters(query: RunListQuery) {
  return { ...query, limit: PAGE_SIZE, metrics: query.cols?.metric.join(",") || undefined };
}

/**
 * Loads one page of runs; an invalid cursor (stale or hand-edited) falls back to the newest page
 * and is reported in `ignored`. Returns the load time for react-query's initialDataUpdatedAt.
 */
async function loadPage(
  query: RunListQuery,
  ignored: string[],
): Promise<{ page: RunListPage; loadedAt: number }> {
  try {
    return {
      page: await listRuns(prisma(), runListQuery.parse(listFilters(query))),
      loadedAt: Date.now(),
    };
  } catch (err) {
    if (!(err instanceof ValidationError) || !query.cursor) throw err;
    ignored.push("cursor");
    delete query.cursor;
    return {
      page: await listRuns(prisma(), runListQuery.parse(listFilters(query))),
      loadedAt: Date.now(),
    };
  }
}

/** /runs: the run list with filters, search and sort in the URL, and the person's saved views; the first page is loaded here, then kept live in the browser. */
export default async function RunsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const viewer = await requirePageViewer();
  const { query, ignored } = parseRunListQuery(await searchParams);
  const [{ page, loadedAt }, savedViews] = await Promise.all([
    loadPage(query, ignored),
    viewer.kind === "user" ? listSavedViews(prisma(), viewer.id, "runs") : [],
  ]);
  return (
    <RunsView
      initial={page}
      query={query}
      pageSize={PAGE_SIZE}
      renderedAt={loadedAt}
      origin={await requestOrigin()}
      ignored={ignored}
      savedViews={savedViews}
    />
  );
}
