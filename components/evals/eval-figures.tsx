"use client";

import Link from "next/link";
import type { ReactNode } from "react";

import { formatCount } from "@/lib/format";
import { BASELINES_PATH } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { BaselineView, RunCheckpointView } from "@/lib/view-models/evals";

import { atCheckpoint } from "./checkpoint-picker";
import { checkpointName, formatTau } from "./format";
import {
  baselineDelta,
  comparableBaselines,
  compareWithBaselines,
  type BaselineComparison,
} from "./reference";

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

/**
 * The headline tiles of a run's evals: latest τ, best τ, the latest against its comparable
 * baseline(s) (or a link to add one), and the latest checkpoint with its prompt, step and token counts.
 */
export function HeadlineRow({
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
