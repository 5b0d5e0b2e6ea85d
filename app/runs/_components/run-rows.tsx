"use client";

import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { RunDuration } from "@/components/runs/run-duration";
import { StatusBadge } from "@/components/runs/status-badge";
import { TagList } from "@/components/runs/tag-list";
import { Badge } from "@/components/ui/badge";
import { TableCell, TableRow } from "@/components/ui/table";
import { formatConfigValue, formatTokPerS, MISSING } from "@/lib/format";
import { metricTitle } from "@/lib/metric-labels";
import { runPath, runsPath } from "@/lib/paths";
import type { RunColumnFormats } from "@/lib/run-columns";
import { engineLabel } from "@/lib/run-config";
import { configValueAt, type RunColumns } from "@/lib/run-list-columns";
import { cn } from "@/lib/utils";
import type { RunSummary } from "@/lib/view-models";

/** Compare selection of one run: benchmark and training runs can be ticked. */
export interface RunSelection {
  selected: readonly number[];
  onToggle: (id: number) => void;
}

function SelectBox({
  run,
  selected,
  onToggle,
}: {
  run: RunSummary;
  selected: boolean;
  onToggle: (id: number) => void;
}) {
  const selectable = run.kind === "benchmark" || run.kind === "training";
  return (
    <input
      type="checkbox"
      className="size-3.5 translate-y-px accent-primary"
      checked={selected}
      disabled={!selectable}
      onChange={() => onToggle(run.id)}
      aria-label={
        selectable
          ? `Select ${run.name} for comparison`
          : `${run.name} cannot be compared (benchmark and training runs can)`
      }
      title={
        selectable ? "Select for comparison" : "Only benchmark and training runs can be compared"
      }
    />
  );
}

/** One run as a table row; `nested` indents it under its group's row. */
export function RunTableRow({
  run: r,
  selected,
  onToggle,
  nested = false,
  formats,
  cols,
}: RunSelection & {
  run: RunSummary;
  nested?: boolean;
  formats: RunColumnFormats;
  cols: RunColumns;
}) {
  const show = (c: RunColumns["base"][number]) => cols.base.includes(c);
  const isSelected = selected.includes(r.id);
  const engine = engineLabel(r.engine, r.engineVersion);
  return (
    <TableRow
      data-state={isSelected ? "selected" : undefined}
      className={cn(nested && "bg-muted/30")}
    >
      <TableCell>
        <SelectBox run={r} selected={isSelected} onToggle={onToggle} />
      </TableCell>
      <TableCell className="text-muted-fg">{r.kind}</TableCell>
      <TableCell className="overflow-hidden py-1.5">
        <div
          className={cn(
            "flex min-w-0 items-center gap-2",
            nested && "border-l-2 border-border pl-4",
          )}
        >
          <Link
            href={runPath(r.id)}
            className="truncate rounded-sm font-medium hover:underline"
            title={r.name}
          >
            {r.name}
          </Link>
          {r.archivedAt && (
            <Badge tone="outline" className="shrink-0">
              archived
            </Badge>
          )}
          <span className="hidden shrink-0 2xl:inline">
            <TagList tags={r.tags} max={3} nowrap />
          </span>
        </div>
        {/* Below 1536 px the tags get a line of their own under the name, so the name keeps the cell's whole width. */}
        {r.tags.length > 0 && (
          <div
            className={cn("overflow-hidden 2xl:hidden", nested && "pl-4")}
            data-testid="run-row-tags"
          >
            <TagList tags={r.tags} max={3} nowrap />
          </div>
        )}
      </TableCell>
      {show("model") && (
        <TableCell className="truncate" title={r.model ?? undefined}>
          {r.model ?? <span className="text-muted-fg">{MISSING}</span>}
        </TableCell>
      )}
      {show("engine") && (
        <TableCell className="truncate" title={engine ?? undefined}>
          {engine ?? <span className="text-muted-fg">{MISSING}</span>}
        </TableCell>
      )}
      {show("host") && (
        <TableCell className="truncate">
          <Link
            href={runsPath({ host: r.host })}
            className="rounded-sm hover:underline"
            title={`Runs on ${r.host}`}
          >
            {r.host}
          </Link>
        </TableCell>
      )}
      {show("status") && (
        <TableCell>
          <StatusBadge state={r.state} mismatches={r.countMismatches} />
        </TableCell>
      )}
      {show("startedAt") && (
        <TableCell className="text-muted-fg">
          <RelativeTime iso={r.startedAt} />
        </TableCell>
      )}
      {show("duration") && (
        <TableCell className="text-right">
          <RunDuration run={r} unit={formats.durationUnit} />
        </TableCell>
      )}
      {show("peak") && (
        <TableCell className={cn("text-right", r.peakOutputTokPerS !== null && "font-medium")}>
          {r.kind === "benchmark" ? (
            formats.peak(r.peakOutputTokPerS)
          ) : (
            <span className="text-muted-fg">{MISSING}</span>
          )}
        </TableCell>
      )}
      {cols.config.map((k) => (
        <ConfigCell
          key={k}
          value={configValueAt(r.config, k)}
          right={formats.numericConfig[k] ?? false}
        />
      ))}
      {cols.metric.map((k) => (
        <MetricCell key={k} value={r.metrics?.[k]} format={formats.metric[k]} />
      ))}
    </TableRow>
  );
}

/** A config value as a table cell: cut with the full text on hover; "-" when the run lacks the key; `right` in a column of numbers. */
function ConfigCell({ value, right }: { value: unknown; right: boolean }) {
  if (value === undefined || value === null)
    return (
      <TableCell className={cn(right && "text-right")}>
        <span className="text-muted-fg">{MISSING}</span>
      </TableCell>
    );
  const text = formatConfigValue(value);
  return (
    <TableCell className={cn("truncate", right && "text-right tabular-nums")} title={text}>
      {text}
    </TableCell>
  );
}

/** A metric's latest finite value as a right-aligned cell in its column's precision; "-" when the run has none. */
function MetricCell({
  value,
  format,
}: {
  value: number | undefined;
  format: ((v: number | null | undefined) => string) | undefined;
}) {
  if (value === undefined)
    return (
      <TableCell className="text-right">
        <span className="text-muted-fg">{MISSING}</span>
      </TableCell>
    );
  return (
    <TableCell className="text-right tabular-nums" title={String(value)}>
      {format ? format(value) : String(value)}
    </TableCell>
  );
}

/** One run as a stacked card (phone): full name on up to two lines, then status and facts. */
export function RunCard({
  run: r,
  selected,
  onToggle,
  nested = false,
  configKeys = [],
  metricKeys = [],
  metricFormats = {},
}: RunSelection & {
  run: RunSummary;
  nested?: boolean;
  configKeys?: readonly string[];
  metricKeys?: readonly string[];
  /** Per metric key: its column's number format (one precision across the page). */
  metricFormats?: Record<string, (v: number | null | undefined) => string>;
}) {
  const config = [
    ...configKeys
      .map((k) => [k, configValueAt(r.config, k)] as const)
      .filter(([, v]) => v !== undefined && v !== null),
    ...metricKeys.flatMap((k) => {
      const v = r.metrics?.[k];
      return v === undefined ? [] : [[metricTitle(k), metricFormats[k]?.(v) ?? String(v)] as const];
    }),
  ];
  return (
    <li
      className={cn(
        "grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 px-4 py-3",
        nested && "bg-muted/30 pl-8",
      )}
    >
      <span className="pt-0.5">
        <SelectBox run={r} selected={selected.includes(r.id)} onToggle={onToggle} />
      </span>
      <div className="grid min-w-0 gap-1">
        <Link
          href={runPath(r.id)}
          className="line-clamp-2 rounded-sm font-medium break-words hover:underline"
          title={r.name}
        >
          {r.name}
        </Link>
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-fg tabular-nums">
          <StatusBadge state={r.state} mismatches={r.countMismatches} />
          <span>{r.kind}</span>
          <span aria-hidden>·</span>
          <Link href={runsPath({ host: r.host })} className="hover:underline">
            {r.host}
          </Link>
          <span aria-hidden>·</span>
          <RelativeTime iso={r.startedAt} />
          <span aria-hidden>·</span>
          <RunDuration run={r} />
          {r.kind === "benchmark" && r.peakOutputTokPerS !== null && (
            <span className="font-medium text-foreground">
              peak {formatTokPerS(r.peakOutputTokPerS)}
            </span>
          )}
        </div>
        {config.length > 0 && (
          <dl className="flex flex-wrap gap-x-3 gap-y-0.5 text-xs" data-testid="run-card-config">
            {config.map(([k, v], i) => (
              <div key={`${i}:${k}`} className="flex min-w-0 gap-1">
                <dt className="text-muted-fg">{k}</dt>
                <dd className="min-w-0 break-all">{formatConfigValue(v)}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
    </li>
  );
}
