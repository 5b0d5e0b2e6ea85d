"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, ArrowRight, GitCompareArrows, X } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { RunsEmptyState } from "@/components/runs/runs-empty-state";
import { Button, buttonVariants } from "@/components/ui/button";
import { fetchRuns } from "@/lib/api/fetchers/runs";
import { runsQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import { pageCount, pageNumbers } from "@/lib/pagination";
import { comparePath, hasRunFilters, runsPath, type RunListQuery } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { RunListPage, SavedViewView } from "@/lib/view-models";

import { ColumnMenu } from "./column-menu";
import { RunFilters } from "./run-filters";
import { RunGroupSelect } from "./run-group-select";
import { RunSortSelect } from "./run-sort-select";
import { RunsTable } from "./runs-table";
import { SavedViews } from "./saved-views";

interface RunsViewProps {
  initial: RunListPage;
  query: RunListQuery;
  pageSize: number;
  renderedAt: number;
  origin: string;
  ignored: string[];
  savedViews: SavedViewView[];
}

/** The live run list: saved views, filters, sortable table with repeated-run groups and compare selection, cursor pagination, empty states. */
export function RunsView({
  initial,
  query,
  pageSize,
  renderedAt,
  origin,
  ignored,
  savedViews,
}: RunsViewProps) {
  const router = useRouter();
  const [navigating, startTransition] = useTransition();
  const go = (q: RunListQuery) => startTransition(() => router.push(runsPath(q)));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggleGroup = (key: string) =>
    setExpanded((s) => {
      const next = new Set(s);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const live = useLiveTopics(["runs"]);
  const { data, error } = useQuery({
    queryKey: runsQueryKey(query),
    queryFn: ({ signal }) => fetchRuns(query, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const [selected, setSelected] = useState<number[]>([]);
  const toggle = (id: number) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  const filtered = hasRunFilters(query);
  const firstPage = !query.cursor && (query.page ?? 1) === 1;
  const pages = pageCount(data.total, pageSize);
  const noRunsAtAll = data.runs.length === 0 && !filtered && firstPage && data.archivedHidden === 0;
  const hosts = [...new Set(data.runs.map((r) => r.host))].sort();

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Runs</h1>
        <span className="text-sm text-muted-fg tabular-nums" data-testid="runs-total">
          {data.total === 0
            ? ""
            : `${formatCount(data.total)} run${data.total === 1 ? "" : "s"}${data.page !== null && pages > 1 ? ` · page ${formatCount(data.page)} of ${formatCount(pages)}` : ""}`}
        </span>
        <div className="ml-auto flex items-center gap-2">
          {selected.length > 0 && (
            <>
              <span className="text-sm text-muted-fg tabular-nums">{selected.length} selected</span>
              <Button variant="ghost" size="sm" onClick={() => setSelected([])}>
                <X aria-hidden />
                Clear
              </Button>
            </>
          )}
          {!noRunsAtAll && (
            <Link
              href={comparePath(selected)}
              aria-disabled={selected.length < 2}
              tabIndex={selected.length < 2 ? -1 : undefined}
              title={
                selected.length < 2
                  ? "Select two or more benchmark or training runs to compare"
                  : undefined
              }
              className={cn(
                buttonVariants({
                  variant: selected.length >= 2 ? "default" : "outline",
                  size: "sm",
                }),
              )}
            >
              <GitCompareArrows aria-hidden />
              Compare{selected.length >= 2 ? ` ${selected.length} runs` : ""}
            </Link>
          )}
        </div>
      </div>

      {!noRunsAtAll && <RunFilters query={query} hosts={hosts} />}
      {!noRunsAtAll && (
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <SavedViews query={query} initial={savedViews} />
          <div className="ml-auto flex flex-wrap items-center gap-x-4 gap-y-2">
            <RunSortSelect query={query} onQuery={go} />
            <ColumnMenu
              query={query}
              runs={data.runs}
              metricKeys={data.metricKeys ?? []}
              onQuery={go}
            />
            {!query.sweep && <RunGroupSelect query={query} runs={data.runs} onQuery={go} />}
            {query.sweep && (
              <p className="text-sm text-muted-fg">
                Runs of one group.{" "}
                <Link
                  href={runsPath({
                    ...query,
                    sweep: undefined,
                    cursor: undefined,
                    page: undefined,
                  })}
                  className="text-link underline-offset-4 hover:underline"
                >
                  Show every run
                </Link>
              </p>
            )}
          </div>
        </div>
      )}

      {ignored.length > 0 && (
        <p
          role="status"
          className="rounded-md border border-stale/40 bg-stale-bg px-3 py-2 text-sm text-stale"
        >
          Ignored invalid URL parameter{ignored.length > 1 ? "s" : ""}: {ignored.join(", ")}.
        </p>
      )}
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the list ({error.message}); showing the last data received.
        </p>
      )}

      {noRunsAtAll ? (
        <RunsEmptyState origin={origin} />
      ) : data.runs.length === 0 ? (
        <div className="rounded-lg border border-dashed border-border bg-card px-6 py-10 text-center text-sm text-muted-fg">
          {filtered
            ? "No runs match these filters."
            : firstPage
              ? "Every run is archived."
              : "No older runs."}{" "}
          <Link
            href={filtered || !firstPage ? "/runs" : runsPath({ archived: "include" })}
            className="text-link underline-offset-4 hover:underline"
          >
            {filtered || !firstPage ? "Show all runs" : "Show archived runs"}
          </Link>
        </div>
      ) : (
        <div aria-busy={navigating}>
          <RunsTable
            runs={data.runs}
            groups={data.groups}
            query={query}
            onQuery={go}
            expanded={expanded}
            onToggleGroup={toggleGroup}
            selected={selected}
            onToggle={toggle}
          />
        </div>
      )}
      {data.archivedHidden > 0 && data.runs.length > 0 && !data.nextCursor && (
        <p className="text-sm text-muted-fg">
          {data.archivedHidden} archived run{data.archivedHidden === 1 ? "" : "s"} hidden.{" "}
          <Link
            href={runsPath({ ...query, archived: "include", cursor: undefined, page: undefined })}
            className="text-link underline-offset-4 hover:underline"
          >
            Show archived
          </Link>
        </p>
      )}

      {data.page !== null && pages > 1 && (
        <PageLinks query={query} page={data.page} pages={pages} />
      )}
      {data.page === null && (data.nextCursor || !firstPage) && (
        <nav aria-label="Pages" className="flex items-center justify-between">
          {!firstPage ? (
            <Link
              href={runsPath({ ...query, cursor: undefined, page: undefined })}
              className={buttonVariants({ variant: "outline", size: "sm" })}
            >
              <ArrowLeft aria-hidden />
              Newest
            </Link>
          ) : (
            <span />
          )}
          {data.nextCursor && (
            <Link
              href={runsPath({ ...query, cursor: data.nextCursor })}
              className={buttonVariants({ variant: "outline", size: "sm" })}
            >
              Older
              <ArrowRight aria-hidden />
            </Link>
          )}
        </nav>
      )}
      <span className="sr-only">{pageSize} runs per page</span>
    </div>
  );
}

/** Numbered page links (1 … 4 5 6 … 20) with Newer/Older; every link keeps the filters and sort. */
function PageLinks({ query, page, pages }: { query: RunListQuery; page: number; pages: number }) {
  const link = (p: number) => runsPath({ ...query, cursor: undefined, page: p });
  return (
    <nav
      aria-label="Pages"
      className="flex flex-wrap items-center justify-center gap-1"
      data-testid="run-pages"
    >
      {page > 1 && (
        <Link
          href={link(page - 1)}
          className={buttonVariants({ variant: "outline", size: "sm" })}
          aria-label="Newer runs (previous page)"
        >
          <ArrowLeft aria-hidden />
          Newer
        </Link>
      )}
      {pageNumbers(page, pages).map((p, i) =>
        p === "…" ? (
          <span key={`gap${i}`} className="px-1 text-sm text-muted-fg" aria-hidden>
            …
          </span>
        ) : (
          <Link
            key={p}
            href={link(p)}
            aria-current={p === page ? "page" : undefined}
            aria-label={`Page ${p}`}
            className={cn(
              buttonVariants({ variant: p === page ? "default" : "ghost", size: "sm" }),
              "min-w-8 tabular-nums",
            )}
          >
            {formatCount(p)}
          </Link>
        ),
      )}
      {page < pages && (
        <Link
          href={link(page + 1)}
          className={buttonVariants({ variant: "outline", size: "sm" })}
          aria-label="Older runs (next page)"
        >
          Older
          <ArrowRight aria-hidden />
        </Link>
      )}
    </nav>
  );
}
