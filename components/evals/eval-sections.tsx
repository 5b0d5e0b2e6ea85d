"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import Link from "next/link";
import { useState, type ReactNode } from "react";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import { fetchRunEvals } from "@/lib/api/fetchers/evals";
import { runEvalsPrefix, runEvalsQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import { BASELINES_PATH, runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { RunSummary } from "@/lib/view-models";
import type { BaselineView, RunCheckpointView, RunEvalsView } from "@/lib/view-models/evals";

import { EvalTable } from "./eval-table";
import { checkpointName, draftSettingsLabel, formatTau } from "./format";
import {
  baselineDelta,
  comparableBaselines,
  compareWithBaselines,
  type BaselineComparison,
} from "./reference";
import { TauCategoryBars } from "./tau-category-bars";
import { TauChart } from "./tau-chart";
import { TauHistogram } from "./tau-histogram";

/** A run's evals refetch at most this often (ms) while its worker pushes (progress, metrics…). */
const EVALS_REFRESH_MS = 1000;
const CHART_HEIGHT = 300;

/** A headline tile: label, big value, note. */
export function EvalFigure({
  label,
  value,
  note,
  accent,
}: {
  label: string;
  value: string;
  note: ReactNode;
  accent?: boolean;
}) {
  return (
    <div className="min-w-0 rounded-lg border border-border bg-card px-4 py-3">
      <div className="text-xs text-muted-fg">{label}</div>
      <div
        className={cn(
          "mt-0.5 text-2xl font-semibold tracking-tight break-words tabular-nums",
          accent && "text-link",
        )}
      >
        {value}
      </div>
      {/* Wraps: a note ending in "…" had no tooltip ("coding τ 9.00: below the reference τ 12.…" on a phone). */}
      <div className="mt-0.5 text-xs break-words text-muted-fg">{note}</div>
    </div>
  );
}

/**
 * Latest τ against each baseline the run is compared with ({@link compareWithBaselines}): one
 * tile; with several baselines a line per baseline, so none is picked silently. A baseline of one
 * category is compared with that category's τ and says so ("coding τ"). `names: false` when a
 * column header already names the one baseline.
 */
export function BaselineDeltas({
  comparisons,
  compact,
  names = true,
}: {
  comparisons: readonly BaselineComparison[];
  compact?: boolean;
  names?: boolean;
}) {
  return (
    <span className={cn("grid", compact ? "gap-0" : "gap-0.5")}>
      {comparisons.map(({ baseline: b, tau, category }) => {
        const vs = baselineDelta(tau, b);
        const what = category ? `${category} τ ${formatTau(tau)} ` : "";
        return (
          <span
            key={b.id}
            className="flex min-w-0 items-baseline gap-1.5 whitespace-nowrap"
            title={`${what}${vs.where} ${b.name} (τ ${formatTau(b.value)})`}
            data-testid="baseline-delta"
          >
            <span
              className={cn(
                "font-medium tabular-nums",
                vs.where === "above"
                  ? "text-succeeded"
                  : vs.where === "below"
                    ? "text-muted-fg"
                    : "",
              )}
            >
              {vs.delta}
            </span>
            {category && <span className="text-xs text-muted-fg">{category} τ</span>}
            {names && (
              <span className="truncate text-xs text-muted-fg">
                {compact ? b.name : `${vs.where} ${b.name} (τ ${formatTau(b.value)})`}
              </span>
            )}
          </span>
        );
      })}
    </span>
  );
}

/** "at step 4,000", or "all results" for results that name no checkpoint. */
function atCheckpoint(c: RunCheckpointView): string {
  return c.key === "none" ? "all results (no checkpoint named)" : `at ${checkpointName(c)}`;
}

function HeadlineRow({
  checkpoints,
  latest,
  baselines,
  datasets,
}: {
  checkpoints: RunCheckpointView[];
  latest: RunCheckpointView;
  baselines: BaselineView[];
  datasets: string[];
}) {
  const best = checkpoints.reduce((a, c) => (c.tau > a.tau ? c : a), latest);
  const refs = compareWithBaselines(
    comparableBaselines(baselines, datasets),
    latest.tau,
    latest.categories,
  );
  const ref = refs.length === 1 ? refs[0]! : null;
  const vs = ref ? baselineDelta(ref.tau, ref.baseline) : null;
  return (
    <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      <EvalFigure
        label="Latest acceptance length τ"
        value={formatTau(latest.tau)}
        note={atCheckpoint(latest)}
        accent
      />
      <EvalFigure label="Best τ" value={formatTau(best.tau)} note={atCheckpoint(best)} />
      {ref && vs ? (
        <EvalFigure
          label={
            ref.category
              ? `Latest ${ref.category} τ vs ${ref.baseline.name}`
              : `Latest vs ${ref.baseline.name}`
          }
          value={vs.delta}
          note={`${ref.category ? `${ref.category} τ ${formatTau(ref.tau)}: ` : ""}${vs.where} the reference τ ${formatTau(ref.baseline.value)}`}
        />
      ) : refs.length > 1 ? (
        <div className="min-w-0 rounded-lg border border-border bg-card px-4 py-3">
          <div className="text-xs text-muted-fg">Latest vs {refs.length} baselines</div>
          <div className="mt-1 text-sm">
            <BaselineDeltas comparisons={refs} compact />
          </div>
        </div>
      ) : (
        <EvalFigure
          label="Reference"
          value="—"
          note={
            <Link href={BASELINES_PATH} className="text-link underline-offset-4 hover:underline">
              add a τ baseline
            </Link>
          }
        />
      )}
      <EvalFigure
        label="Latest checkpoint"
        value={latest.key === "none" ? "unnamed" : checkpointName(latest)}
        note={`${formatCount(latest.prompts)} prompt${latest.prompts === 1 ? "" : "s"} · ${formatCount(latest.verifySteps)} verify steps · ${formatCount(latest.tokensProduced)} tokens`}
      />
    </div>
  );
}

/**
 * The eval part of a run page (a drafter training run scoring its checkpoints, or an eval run):
 * headline τ, "acceptance length τ by checkpoint" against the τ baselines, τ by category and the
 * per-prompt τ histogram of a chosen checkpoint (latest by default), and the checkpoint × category
 * table. Renders nothing for a run of another kind without eval results. A training run also shows
 * the results eval runs pushed for its checkpoints (linked as "scored by"). Live: refetched on
 * `evals` (each run.eval, and checkpoint artifacts) and `baselines`.
 */
export function EvalSections({ runId, kind }: { runId: number; kind: RunSummary["kind"] }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  // Status only; invalidation is throttled below.
  const live = useLiveTopics([]);
  // Every run.eval (any run) and checkpoint artifact announces `evals`; `run:<id>` is not used here:
  // it changes on every metric push and its value arrives pushed, not as a notice.
  useLiveInvalidate(["evals", "baselines"], [runEvalsPrefix(runId)], {
    minIntervalMs: EVALS_REFRESH_MS,
  });
  const { data, error } = useQuery({
    queryKey: runEvalsQueryKey(runId, draft),
    queryFn: ({ signal }) => fetchRunEvals(runId, draft, signal),
    refetchInterval: refetchIntervalFor(live),
    placeholderData: keepPreviousData,
  });

  if (!data) {
    if (kind !== "eval") return null;
    return (
      <Card>
        <CardContent className="text-sm text-muted-fg">
          {error ? `Could not load the evaluations (${error.message}).` : "Loading evaluations…"}
        </CardContent>
      </Card>
    );
  }
  if (data.resultCount === 0) {
    if (kind !== "eval") return null;
    return (
      <Card>
        <CardHeader>
          <CardTitle>Acceptance length τ by checkpoint</CardTitle>
        </CardHeader>
        <CardContent className="text-sm text-muted-fg">
          No eval results yet. Workers push them as{" "}
          <code className="font-mono text-xs">run.eval</code> frames (checkpoint, prompt, verify
          steps, accepted draft tokens), or import a SpecForge results file:{" "}
          <code className="font-mono text-xs">npx pitwall import results_*.jsonl</code>.
        </CardContent>
      </Card>
    );
  }
  return (
    <EvalBody view={data} error={error} picked={picked} onPick={setPicked} onDraft={setDraft} />
  );
}

function EvalBody({
  view,
  error,
  picked,
  onPick,
  onDraft,
}: {
  view: RunEvalsView;
  error: Error | null;
  picked: string | null;
  onPick: (key: string) => void;
  onDraft: (key: string) => void;
}) {
  const { checkpoints, baselines } = view;
  const latest = checkpoints.find((c) => c.key === view.latestKey) ?? null;
  const selected = checkpoints.find((c) => c.key === picked) ?? latest;
  const currentDraft = view.draftSettings.find((d) => d.key === view.draft);
  const color = seriesColor(0);

  return (
    <>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the evaluations ({error.message}); showing the last data received.
        </p>
      )}
      {latest && (
        <HeadlineRow
          checkpoints={checkpoints}
          latest={latest}
          baselines={baselines}
          datasets={view.datasets}
        />
      )}
      <Card className="min-w-0">
        <CardHeader className="flex-wrap">
          <CardTitle>Acceptance length τ by checkpoint</CardTitle>
          <CardDescription className="tabular-nums">
            τ = tokens produced / verify steps, summed over all prompts · {checkpoints.length}{" "}
            checkpoint{checkpoints.length === 1 ? "" : "s"}
            {view.scoredBy.length > 0 && (
              <>
                {" · scored by "}
                {view.scoredBy.map((r, i) => (
                  <span key={r.id}>
                    {i > 0 && ", "}
                    <Link href={runPath(r.id)} className="text-link hover:underline">
                      {r.name}
                    </Link>
                  </span>
                ))}
              </>
            )}
          </CardDescription>
          <div className="ml-auto flex items-center gap-2 text-xs text-muted-fg">
            {view.draftSettings.length > 1 ? (
              <>
                <span className="flex items-center gap-1 text-stale">
                  <TriangleAlert aria-hidden className="size-3.5" />
                  {view.draftSettings.length} draft settings, shown one at a time
                </span>
                <Select
                  aria-label="Draft settings"
                  value={view.draft ?? ""}
                  onChange={(e) => onDraft(e.currentTarget.value)}
                  className="h-7 max-w-80 text-xs"
                >
                  {view.draftSettings.map((d) => (
                    <option key={d.key} value={d.key}>
                      {draftSettingsLabel(d.settings)} ({d.results} results)
                    </option>
                  ))}
                </Select>
              </>
            ) : (
              currentDraft && <span>draft: {draftSettingsLabel(currentDraft.settings)}</span>
            )}
          </div>
        </CardHeader>
        <CardContent>
          <TauChart
            series={[{ key: "run", label: "τ", color, points: checkpoints }]}
            baselines={baselines}
            height={CHART_HEIGHT}
          />
        </CardContent>
      </Card>

      {selected && (
        <div className="grid gap-4 xl:grid-cols-2">
          <Card className="min-w-0">
            <CardHeader className="flex-wrap">
              <CardTitle>τ by category</CardTitle>
              <CheckpointPicker
                checkpoints={checkpoints}
                selected={selected}
                latestKey={view.latestKey}
                onPick={onPick}
                id="eval-category-checkpoint"
              />
            </CardHeader>
            <CardContent>
              <TauCategoryBars
                series={[
                  {
                    key: selected.key,
                    label: checkpointName(selected),
                    color,
                    categories: selected.categories,
                  },
                ]}
                baselines={baselines}
              />
            </CardContent>
          </Card>
          <Card className="min-w-0">
            <CardHeader className="flex-wrap">
              <CardTitle>Per-prompt τ</CardTitle>
              <CheckpointPicker
                checkpoints={checkpoints}
                selected={selected}
                latestKey={view.latestKey}
                onPick={onPick}
                id="eval-histogram-checkpoint"
              />
            </CardHeader>
            <CardContent>
              <TauHistogram distribution={selected.distribution} checkpointTau={selected.tau} />
            </CardContent>
          </Card>
        </div>
      )}

      <Card className="min-w-0">
        <CardHeader>
          <CardTitle>τ by checkpoint and category</CardTitle>
          <CardDescription className="tabular-nums">
            {view.resultCount} result{view.resultCount === 1 ? "" : "s"}
            {view.datasets.length > 0 && ` · ${view.datasets.join(", ")}`}
          </CardDescription>
        </CardHeader>
        <EvalTable rows={view.rows} />
      </Card>
    </>
  );
}

function CheckpointPicker({
  checkpoints,
  selected,
  latestKey,
  onPick,
  id,
}: {
  checkpoints: RunCheckpointView[];
  selected: RunCheckpointView;
  latestKey: string | null;
  onPick: (key: string) => void;
  id: string;
}) {
  if (checkpoints.length === 1)
    return <CardDescription className="ml-auto">{atCheckpoint(selected)}</CardDescription>;
  return (
    <div className="ml-auto flex items-center gap-2 text-xs text-muted-fg">
      <label htmlFor={id}>checkpoint</label>
      <Select
        id={id}
        value={selected.key}
        onChange={(e) => onPick(e.currentTarget.value)}
        className="h-7 text-xs"
      >
        {checkpoints.map((c) => (
          <option key={c.key} value={c.key}>
            {checkpointName(c)}
            {c.key === latestKey ? " (latest)" : ""}
          </option>
        ))}
      </Select>
    </div>
  );
}
