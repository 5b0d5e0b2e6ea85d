"use client";

import { TriangleAlert } from "lucide-react";
import Link from "next/link";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import { runPath } from "@/lib/paths";
import type { RunEvalsView } from "@/lib/view-models/evals";

import { CheckpointPicker } from "./checkpoint-picker";
import { HeadlineRow } from "./eval-figures";
import { EvalTable } from "./eval-table";
import { checkpointName, draftSettingsLabel } from "./format";
import { TauCategoryBars } from "./tau-category-bars";
import { TauChart } from "./tau-chart";
import { TauHistogram } from "./tau-histogram";

/** Height (px) of the τ-by-checkpoint chart. */
const CHART_HEIGHT = 300;

/**
 * A run's evals once it has results: headline tiles, τ by checkpoint with the draft-settings menu,
 * τ by category and the per-prompt histogram of the `picked` checkpoint (latest by default), and
 * the checkpoint × category table; `error` is a failed refresh shown over the last data.
 */
export function EvalBody({
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
