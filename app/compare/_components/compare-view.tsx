"use client";

import { useQueries } from "@tanstack/react-query";
import { GitCompareArrows } from "lucide-react";
import Link from "next/link";

import { LatencyChart } from "@/components/charts/latency-chart";
import { LatencyUnitProvider } from "@/components/charts/latency-unit";
import { SpeedTradeoffChart } from "@/components/charts/speed-tradeoff-chart";
import { ThroughputChart } from "@/components/charts/throughput-chart";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { LongContextCard } from "@/components/runs/long-context-card";
import { ProjectionTable } from "@/components/runs/projection-table";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRun } from "@/lib/api/fetchers/runs";
import { runQueryKey } from "@/lib/api/query-keys";
import { pickLatencyUnits } from "@/lib/latency-unit";
import { runTopic } from "@/lib/protocol/live";
import type { RunDetail } from "@/lib/view-models";

import { compareModel } from "./compare-model";
import { CompareRunsTable } from "./compare-runs-table";
import { ConfigDiffTable } from "./config-diff-table";
import { MissingNote } from "./missing-note";
import { TrainingCompare } from "./training-compare";

interface CompareViewProps {
  initial: RunDetail[];
  missing: number[];
  renderedAt: number;
}

/**
 * Several runs side by side, one colour per run: training metrics by step (smoothed, log-y per chart), throughput sweeps by concurrency, long-context
 * runs by context length (a run appears in the charts it has points for), a summary, the
 * projection for one workload on every run, and the config differences.
 */
export function CompareView({ initial, missing, renderedAt }: CompareViewProps) {
  const live = useLiveTopics(initial.map((r) => runTopic(r.id)));
  const results = useQueries({
    queries: initial.map((r) => ({
      queryKey: runQueryKey(r.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchRun(r.id, signal),
      initialData: r,
      initialDataUpdatedAt: renderedAt,
      refetchInterval: refetchIntervalFor(live),
    })),
  });
  const runs = results.map((q, i) => q.data ?? initial[i]!);

  const view = compareModel(runs);

  if (initial.length < 2) {
    return (
      <div className="grid gap-4">
        <h1 className="text-lg font-semibold tracking-tight">Compare runs</h1>
        {missing.length > 0 && <MissingNote ids={missing} />}
        <div className="mx-auto mt-6 grid max-w-lg justify-items-center gap-3 rounded-lg border border-dashed border-border bg-card px-6 py-10 text-center">
          <GitCompareArrows aria-hidden className="size-6 text-muted-fg" />
          <p className="text-sm">Pick two or more benchmark or training runs to compare.</p>
          <p className="text-sm text-muted-fg">
            Tick them on the{" "}
            <Link href="/runs" className="text-link underline-offset-4 hover:underline">
              Runs
            </Link>{" "}
            page and press Compare, or open{" "}
            <code className="font-mono text-xs whitespace-nowrap">/compare?ids=12,13</code>.
          </p>
        </div>
      </div>
    );
  }

  const differing = view.diff.filter((r) => r.differs);
  const same = view.diff.filter((r) => !r.differs);
  const byWhat = view.scale.kind === "concurrency" ? "concurrency" : "request rate";
  // One unit per latency metric for every chart on the page, from all compared runs' points (lib/latency-unit.ts).
  const latencyUnits = pickLatencyUnits(runs.flatMap((r) => r.benchmarkPoints));

  return (
    <LatencyUnitProvider units={latencyUnits}>
      <div className="grid gap-4">
        <h1 className="text-lg font-semibold tracking-tight">Compare {runs.length} runs</h1>
        {missing.length > 0 && <MissingNote ids={missing} />}

        {view.showSweep && (
          <Card>
            <CardHeader>
              <CardTitle>Output tok/s by {byWhat}</CardTitle>
              <CardDescription className="ml-auto">
                aggregate output throughput · failed points are not plotted
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-2">
              <ThroughputChart
                series={view.series}
                scale={view.scale}
                showDecode={false}
                height={340}
              />
              {view.unplotted.length > 0 && (
                <p className="text-xs text-muted-fg">
                  Nothing to plot on the {byWhat} axis for:{" "}
                  {view.unplotted.map((e) => e.run.name).join(", ")}.
                </p>
              )}
              {view.longContextOnly.length > 0 && (
                <p className="text-xs text-muted-fg">
                  Long-context points only, so not on this chart:{" "}
                  {view.longContextOnly.map((e) => e.run.name).join(", ")}.
                </p>
              )}
            </CardContent>
          </Card>
        )}

        {view.showSweep && (
          <div className="grid gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
            <Card>
              <CardHeader>
                <CardTitle>Latency by {byWhat}</CardTitle>
                <CardDescription className="ml-auto">
                  TTFT and TPOT, median and p99 · units on each axis
                </CardDescription>
              </CardHeader>
              <CardContent>
                <LatencyChart series={view.series} scale={view.scale} height={240} />
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>Throughput vs per-user speed</CardTitle>
              </CardHeader>
              <CardContent>
                <SpeedTradeoffChart series={view.series} scale={view.scale} height={280} />
              </CardContent>
            </Card>
          </div>
        )}

        {view.anyLongContext && (
          <div className="grid gap-4 xl:grid-cols-2">
            <LongContextCard metric="ttft" series={view.contextSeries} legend showP99={false} />
            <LongContextCard metric="decode" series={view.contextSeries} legend />
          </div>
        )}

        <TrainingCompare runs={runs} colors={view.entries.map((e) => e.color)} live={live} />

        <CompareRunsTable
          entries={view.entries}
          scale={view.scale}
          anyBenchmark={view.anyBenchmark}
        />

        {view.anyBenchmark && <ProjectionTable entries={view.entries} />}

        <Card>
          <CardHeader>
            <CardTitle>Configuration differences</CardTitle>
            <CardDescription className="ml-auto tabular-nums">
              {differing.length} differ · {same.length} identical
            </CardDescription>
          </CardHeader>
          {differing.length === 0 ? (
            <CardContent className="text-sm text-muted-fg">
              These runs have identical configurations.
            </CardContent>
          ) : (
            <ConfigDiffTable rows={differing} entries={view.entries} />
          )}
          {same.length > 0 && (
            <details className="border-t border-border">
              <summary className="cursor-pointer px-4 py-2 text-xs text-muted-fg select-none hover:text-foreground">
                Show {same.length} identical keys
              </summary>
              <ConfigDiffTable rows={same} entries={view.entries} />
            </details>
          )}
        </Card>
      </div>
    </LatencyUnitProvider>
  );
}
