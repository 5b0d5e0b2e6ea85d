"use client";

import { Columns3 } from "lucide-react";

import { metricTitle } from "@/lib/metric-labels";
import type { RunListQuery } from "@/lib/paths";
import {
  configColumnKeys,
  DEFAULT_RUN_COLUMNS,
  LISTABLE_METRIC_KEY,
  MAX_CONFIG_COLUMNS,
  MAX_METRIC_COLUMNS,
  RUN_BASE_COLUMN_LABELS,
  RUN_BASE_COLUMNS,
  type RunBaseColumn,
  type RunColumns,
} from "@/lib/run-list-columns";
import type { RunSummary } from "@/lib/view-models";

function Check({
  label,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className="flex min-w-0 items-center gap-2 rounded-sm px-2 py-1 text-sm hover:bg-muted">
      <input
        type="checkbox"
        className="size-3.5 shrink-0 accent-primary"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <span className="min-w-0 break-all">{label}</span>
    </label>
  );
}

/**
 * The "Columns" menu of /runs: checkboxes for the built-in columns, the config keys found on the
 * listed runs and their metric keys (each run's latest value), plus any chosen key the page lacks
 * so it can be unticked. The choice lives in the URL (`cols=`), so links and saved views keep it.
 * Kind and name always show.
 */
export function ColumnMenu({
  query,
  runs,
  metricKeys: foundMetrics,
  onQuery,
}: {
  query: RunListQuery;
  runs: readonly RunSummary[];
  /** Metric keys the listed runs have (`RunListPage.metricKeys`). */
  metricKeys: readonly string[];
  onQuery: (q: RunListQuery) => void;
}) {
  const cols = query.cols ?? DEFAULT_RUN_COLUMNS;
  const found = configColumnKeys(runs.map((r) => r.config));
  const configKeys = [...cols.config, ...found.filter((k) => !cols.config.includes(k))];
  const set = (next: RunColumns) => onQuery({ ...query, cols: next });
  const toggleBase = (c: RunBaseColumn, on: boolean) =>
    set({
      ...cols,
      base: RUN_BASE_COLUMNS.filter((b) => (b === c ? on : cols.base.includes(b))),
    });
  const toggleConfig = (k: string, on: boolean) =>
    set({ ...cols, config: on ? [...cols.config, k] : cols.config.filter((x) => x !== k) });
  const full = cols.config.length >= MAX_CONFIG_COLUMNS;
  const metricKeys = [
    ...cols.metric,
    ...foundMetrics.filter((k) => !cols.metric.includes(k) && LISTABLE_METRIC_KEY.test(k)),
  ];
  const toggleMetric = (k: string, on: boolean) =>
    set({ ...cols, metric: on ? [...cols.metric, k] : cols.metric.filter((x) => x !== k) });
  const metricsFull = cols.metric.length >= MAX_METRIC_COLUMNS;
  return (
    <details className="relative" data-testid="run-columns">
      <summary className="flex h-8 cursor-pointer list-none items-center gap-1.5 rounded-md border border-border px-2.5 text-sm hover:bg-muted [&::-webkit-details-marker]:hidden">
        <Columns3 aria-hidden className="size-4" />
        Columns
        {cols.config.length + cols.metric.length > 0 && (
          <span className="text-muted-fg tabular-nums">
            +{cols.config.length + cols.metric.length}
          </span>
        )}
      </summary>
      <div
        role="group"
        aria-label="Columns"
        className="absolute right-0 z-20 mt-1 grid max-h-96 w-72 max-w-[calc(100vw-2rem)] gap-0.5 overflow-y-auto rounded-md border border-border bg-card p-2 shadow-md"
      >
        <p className="px-2 pt-1 text-xs font-medium text-muted-fg">
          Columns <span className="md:hidden">(wide screens)</span>
        </p>
        {RUN_BASE_COLUMNS.map((c) => (
          <Check
            key={c}
            label={RUN_BASE_COLUMN_LABELS[c]}
            checked={cols.base.includes(c)}
            onChange={(on) => toggleBase(c, on)}
          />
        ))}
        <p className="px-2 pt-2 text-xs font-medium text-muted-fg">
          Config keys{full ? ` (at most ${MAX_CONFIG_COLUMNS})` : ""}
        </p>
        {configKeys.length === 0 && (
          <p className="px-2 py-1 text-sm text-muted-fg">The listed runs have no config keys.</p>
        )}
        {configKeys.map((k) => (
          <Check
            key={k}
            label={`config.${k}`}
            checked={cols.config.includes(k)}
            disabled={full && !cols.config.includes(k)}
            onChange={(on) => toggleConfig(k, on)}
          />
        ))}
        <p className="px-2 pt-2 text-xs font-medium text-muted-fg">
          Metrics, latest value{metricsFull ? ` (at most ${MAX_METRIC_COLUMNS})` : ""}
        </p>
        {metricKeys.length === 0 && (
          <p className="px-2 py-1 text-sm text-muted-fg">The listed runs have no metrics.</p>
        )}
        {metricKeys.map((k) => (
          <Check
            key={k}
            label={metricTitle(k) === k ? k : `${metricTitle(k)} · ${k}`}
            checked={cols.metric.includes(k)}
            disabled={metricsFull && !cols.metric.includes(k)}
            onChange={(on) => toggleMetric(k, on)}
          />
        ))}
      </div>
    </details>
  );
}
