"use client";

import { useQuery } from "@tanstack/react-query";
import { FlaskConical, Ruler } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTransition } from "react";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { BaselineDeltas } from "@/components/evals/eval-sections";
import { checkpointName, draftSettingsLabel, formatTau } from "@/components/evals/format";
import { comparableBaselines, compareWithBaselines } from "@/components/evals/reference";
import { TauCategoryBars } from "@/components/evals/tau-category-bars";
import { TauChart } from "@/components/evals/tau-chart";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import type { EvalOverviewQuery as EvalFilters } from "@/lib/api/evals";
import { fetchEvalOverview } from "@/lib/api/fetchers/evals";
import { allEvalOverviewsQueryKey, evalOverviewQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import { BASELINES_PATH, evalsPath, runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type {
  BaselineView,
  EvalOverviewView,
  TauLineView,
  TauPointView,
} from "@/lib/view-models/evals";

const CHART_HEIGHT = 340;

/** A line's name: the run, plus its draft settings when the run has one line per setting. */
function lineLabel(l: TauLineView): string {
  return l.splitByDraft ? `${l.run.name} · ${draftSettingsLabel(l.draft.settings)}` : l.run.name;
}

/** The line's latest point (server rule: highest step, else most recently scored). */
function latestPoint(l: TauLineView): TauPointView | null {
  return l.points.find((p) => p.key === l.latestKey) ?? null;
}

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

/** Category and dataset menus; the URL is the state. */
function EvalFiltersBar({
  filters,
  categories,
  datasets,
}: {
  filters: EvalFilters;
  categories: string[];
  datasets: string[];
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const go = (next: EvalFilters) => startTransition(() => router.push(evalsPath(next)));
  // A filter value from the URL that no result has (yet) stays selectable.
  const withCurrent = (list: string[], current: string | undefined) =>
    current && !list.includes(current) ? [current, ...list] : list;
  return (
    <div
      role="search"
      aria-label="Filter evals"
      aria-busy={pending}
      className="flex flex-wrap items-center gap-2"
    >
      <Select
        aria-label="Category"
        value={filters.category ?? ""}
        onChange={(e) => go({ ...filters, category: e.currentTarget.value || undefined })}
      >
        <option value="">All categories</option>
        {withCurrent(categories, filters.category).map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </Select>
      <Select
        aria-label="Dataset"
        value={filters.dataset ?? ""}
        onChange={(e) => go({ ...filters, dataset: e.currentTarget.value || undefined })}
      >
        <option value="">All datasets</option>
        {withCurrent(datasets, filters.dataset).map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </Select>
      {(filters.category || filters.dataset) && (
        <Link
          href={evalsPath()}
          className={cn(buttonVariants({ variant: "ghost" }), "text-muted-fg")}
        >
          Clear filters
        </Link>
      )}
    </div>
  );
}

function LineTable({
  lines,
  baselines,
  category,
}: {
  lines: TauLineView[];
  baselines: BaselineView[];
  category: string | null;
}) {
  // Same rule as the run page: the baselines of the line's datasets, else the dataset-less ones,
  // each compared with the τ of its own category (never an all-category τ with a coding reference).
  const refs = lines.map((l) => {
    const latest = latestPoint(l);
    return latest
      ? compareWithBaselines(
          comparableBaselines(baselines, l.datasets),
          latest.tau,
          l.latestCategories,
          category,
        )
      : [];
  });
  const anyRef = refs.some((r) => r.length > 0);
  const first = refs.find((r) => r.length > 0);
  const sameSingle =
    first?.length === 1 &&
    refs.every(
      (r) =>
        r.length === 0 ||
        (r.length === 1 &&
          r[0]!.baseline.id === first[0]!.baseline.id &&
          r[0]!.category === first[0]!.category),
    )
      ? first[0]!
      : null;
  return (
    <Table>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Run</TableHead>
          <TableHead>Scored by</TableHead>
          <TableHead className="text-right">Checkpoints</TableHead>
          <TableHead>Latest</TableHead>
          <TableHead className="text-right">Latest τ</TableHead>
          <TableHead className="text-right">Best τ</TableHead>
          {anyRef && (
            <TableHead>
              {sameSingle
                ? `${sameSingle.category ? `${sameSingle.category} τ ` : ""}vs ${sameSingle.baseline.name}`
                : "vs baselines"}
            </TableHead>
          )}
        </TableRow>
      </TableHeader>
      <TableBody>
        {lines.map((l, i) => {
          const latest = latestPoint(l);
          const best = Math.max(...l.points.map((p) => p.tau));
          const others = l.evalRuns.filter((r) => r.id !== l.run.id);
          const lineRefs = refs[i]!;
          return (
            <TableRow key={l.key}>
              <TableCell className="max-w-96">
                <span className="flex min-w-0 items-center gap-1.5">
                  <span
                    aria-hidden
                    className="size-2 shrink-0 rounded-full"
                    style={{ background: seriesColor(i) }}
                  />
                  <Link
                    href={runPath(l.run.id)}
                    className="truncate font-medium hover:underline"
                    title={l.run.name}
                  >
                    {l.run.name}
                  </Link>
                  <Badge tone="outline">{l.run.kind}</Badge>
                </span>
                {l.splitByDraft && (
                  <span
                    className="block truncate pl-3.5 text-xs text-muted-fg"
                    title="this run was scored with several draft settings: one line each, never summed"
                  >
                    draft: {draftSettingsLabel(l.draft.settings)}
                  </span>
                )}
              </TableCell>
              <TableCell
                className="max-w-72 truncate text-muted-fg"
                title={others.map((r) => r.name).join(", ") || undefined}
              >
                {others.length === 0
                  ? "itself"
                  : others.map((r, j) => (
                      <span key={r.id}>
                        {j > 0 && ", "}
                        <Link href={runPath(r.id)} className="hover:underline">
                          {r.name}
                        </Link>
                      </span>
                    ))}
              </TableCell>
              <TableCell className="text-right">{formatCount(l.points.length)}</TableCell>
              <TableCell
                className="max-w-40 truncate text-muted-fg"
                title={latest?.uri ?? undefined}
              >
                {latest ? checkpointName(latest) : "—"}
              </TableCell>
              <TableCell className="text-right font-medium">{formatTau(latest?.tau)}</TableCell>
              <TableCell className="text-right">{formatTau(best)}</TableCell>
              {anyRef && (
                <TableCell className="max-w-56">
                  {lineRefs.length > 0 ? (
                    <BaselineDeltas comparisons={lineRefs} compact names={sameSingle === null} />
                  ) : (
                    <span className="text-muted-fg">—</span>
                  )}
                </TableCell>
              )}
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}

function EvalsEmptyState() {
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 rounded-lg border border-border bg-card p-6">
      <div className="flex items-start gap-3">
        <span className="rounded-md bg-muted p-2 text-muted-fg">
          <FlaskConical aria-hidden className="size-5" />
        </span>
        <div className="grid gap-1">
          <h2 className="text-base font-semibold">No drafter evals yet</h2>
          <p className="text-sm text-muted-fg">
            Checkpoints appear here, scored by acceptance length τ, as soon as a worker pushes{" "}
            <code className="font-mono text-xs">run.eval</code> results (checkpoint, prompt, verify
            steps, accepted draft tokens). A training run that also pushes{" "}
            <code className="font-mono text-xs">run.artifact</code> for each checkpoint gets the
            scores of any eval run that names the checkpoint&apos;s URI.
          </p>
        </div>
      </div>
      <div className="rounded-md border border-border bg-muted/60 px-3 py-2 font-mono text-xs">
        PITWALL_TOKEN=&lt;token&gt; npx pitwall import results_20260101_120000.jsonl
      </div>
      <p className="text-xs text-muted-fg">
        Imports SpecForge <code className="font-mono">bench_eagle3.py</code> results (and SGLang
        server logs with <code className="font-mono">accept len</code>).{" "}
        <Link href={BASELINES_PATH} className="text-link underline-offset-4 hover:underline">
          Add a τ baseline
        </Link>{" "}
        to draw the reference line.
      </p>
    </div>
  );
}
