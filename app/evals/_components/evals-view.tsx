"use client";

import { useQuery } from "@tanstack/react-query";
import { Ruler } from "lucide-react";
import Link from "next/link";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { checkpointName } from "@/components/evals/format";
import { TauCategoryBars } from "@/components/evals/tau-category-bars";
import { TauChart } from "@/components/evals/tau-chart";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { EvalOverviewQuery as EvalFilters } from "@/lib/api/evals";
import { fetchEvalOverview } from "@/lib/api/fetchers/evals";
import { allEvalOverviewsQueryKey, evalOverviewQueryKey } from "@/lib/api/query-keys";
import { BASELINES_PATH, evalsPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { EvalOverviewView } from "@/lib/view-models/evals";

import { EvalFiltersBar } from "./eval-filters-bar";
import { LineTable } from "./eval-line-table";
import { EvalsEmptyState } from "./evals-empty-state";
import { latestPoint, lineLabel } from "./tau-lines";

const CHART_HEIGHT = 340;

/** The live eval overview: filters, τ by checkpoint per training run vs baselines, category bars, runs. */
export function EvalsView({
  initial,
  filters,
  renderedAt,
}: {
  initial: EvalOverviewView;
  filters: EvalFilters;
  renderedAt: number;
}) {
  const live = useLiveTopics(["evals"]);
  // The chart draws the baselines too; the `baselines` topic alone does not map to ["evals"].
  useLiveInvalidate(["baselines"], [allEvalOverviewsQueryKey]);
  const { data, error } = useQuery({
    queryKey: evalOverviewQueryKey(filters),
    queryFn: ({ signal }) => fetchEvalOverview(filters, signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const filtered = filters.category !== undefined || filters.dataset !== undefined;
  const lines = data.lines;
  const series = lines.map((l, i) => ({
    key: l.key,
    label: lineLabel(l),
    color: seriesColor(i),
    points: l.points,
  }));
  const bars = lines.flatMap((l, i) => {
    const latest = latestPoint(l);
    return latest && l.latestCategories.length > 0
      ? [
          {
            key: l.key,
            label: `${lineLabel(l)} · ${checkpointName(latest)}`,
            color: seriesColor(i),
            categories: l.latestCategories,
          },
        ]
      : [];
  });
  const runCount = new Set(lines.map((l) => l.run.id)).size;
  const scope = [
    filters.category ? `category ${filters.category}` : null,
    filters.dataset ? `dataset ${filters.dataset}` : null,
  ]
    .filter(Boolean)
    .join(" · ");

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Evals</h1>
        <span className="text-sm text-muted-fg tabular-nums">
          {lines.length > 0 &&
            `${runCount} training run${runCount === 1 ? "" : "s"}${lines.length > runCount ? ` (${lines.length} lines: one per draft settings)` : ""} · ${data.baselines.length} τ baseline${data.baselines.length === 1 ? "" : "s"}`}
        </span>
        <Link
          href={BASELINES_PATH}
          className={cn(buttonVariants({ variant: "outline", size: "sm" }), "ml-auto")}
        >
          <Ruler aria-hidden />
          Baselines
        </Link>
      </div>

      <EvalFiltersBar filters={filters} categories={data.categories} datasets={data.datasets} />

      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the evals ({error.message}); showing the last data received.
        </p>
      )}

      {lines.length === 0 ? (
        filtered ? (
          <div className="rounded-lg border border-dashed border-border bg-card px-6 py-10 text-center text-sm text-muted-fg">
            No eval results match these filters.{" "}
            <Link href={evalsPath()} className="text-link underline-offset-4 hover:underline">
              Show all
            </Link>
          </div>
        ) : (
          <EvalsEmptyState />
        )
      ) : (
        <>
          <Card className="min-w-0">
            <CardHeader className="flex-wrap">
              <CardTitle>Acceptance length τ by checkpoint</CardTitle>
              <CardDescription>
                one line per training run (and draft settings, never summed) · τ = tokens produced /
                verify steps over all prompts{scope ? ` · ${scope}` : ""}
              </CardDescription>
            </CardHeader>
            <CardContent>
              <TauChart
                series={series}
                baselines={data.baselines}
                height={CHART_HEIGHT}
                scope={filters.category ?? null}
              />
            </CardContent>
          </Card>
          {/* Full width: beside the category chart (2xl) the table cut the run names ("DFlash drafter b16 · Qwe…", where run 6 and run 7 differ) and scrolled. */}
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>Training runs</CardTitle>
              <CardDescription>
                checkpoints are matched to the run that saved them (run.artifact URI), else to the
                run holding the results
              </CardDescription>
            </CardHeader>
            <LineTable
              lines={lines}
              baselines={data.baselines}
              category={filters.category ?? null}
            />
          </Card>
          <Card className="min-w-0">
            <CardHeader>
              <CardTitle>τ by category at each run&apos;s latest checkpoint</CardTitle>
            </CardHeader>
            <CardContent>
              <TauCategoryBars series={bars} baselines={data.baselines} />
            </CardContent>
          </Card>
        </>
      )}
    </div>
  );
}
