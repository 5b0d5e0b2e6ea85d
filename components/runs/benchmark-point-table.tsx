"use client";

import { useLatencyUnit } from "@/components/charts/latency-unit";
import { Pager, usePaged } from "@/components/ui/pager";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount } from "@/lib/format";
import { metricLatenciesMs, type LatencyUnits } from "@/lib/latency-unit";
import { isFailedPoint } from "@/lib/metrics/benchmark-sweep";
import { cn } from "@/lib/utils";
import type { BenchmarkPointView } from "@/lib/view-models";

import { cell, Missing, PointResult } from "./benchmark-point-cells";
import { columnFormat, metricGroups, rawText, sweepColumns } from "./benchmark-point-columns";

/** How a point's series is shown in the table (same colour as in the charts). */
export interface PointSeriesTag {
  label: string;
  color: string;
}

interface BenchmarkPointTableProps {
  points: BenchmarkPointView[];
  /** Series of each point by point key; a Series column appears when there is more than one. */
  seriesOf?: ReadonlyMap<string, PointSeriesTag>;
  /** The run's config: the parameters of `config.sweep` (vllm bench sweep) get a column each. */
  config?: Record<string, unknown>;
}

/**
 * Every benchmark point with units in the headers (latencies in the page's unit), 25 a page by
 * default in series and sweep order. FAILED points (no completed request) are marked in red with
 * an icon; columns no point measured are hidden and listed under the table. Columns and their
 * precision come from all points, so they do not change from page to page.
 */
export function BenchmarkPointTable({ points, seriesOf, config }: BenchmarkPointTableProps) {
  const units: LatencyUnits = {
    ttft: useLatencyUnit("ttft", metricLatenciesMs(points, "ttft")),
    tpot: useLatencyUnit("tpot", metricLatenciesMs(points, "tpot")),
    itl: useLatencyUnit("itl", metricLatenciesMs(points, "itl")),
    e2e: useLatencyUnit("e2e", metricLatenciesMs(points, "e2e")),
  };
  const paged = usePaged(points);
  const allGroups = metricGroups(units);
  const sweep = sweepColumns(points, config);
  const groups = allGroups
    .map((g) => ({
      ...g,
      columns: g.columns
        .filter((c) => points.some((p) => c.value(p) !== null))
        .map((c) => ({ ...c, format: c.format ?? columnFormat(points.map(c.value)) })),
    }))
    .filter((g) => g.columns.length > 0);
  const hidden = allGroups.flatMap((g) => {
    const gone = g.columns.filter((c) => !points.some((p) => c.value(p) !== null));
    const name = g.header.replace(/ \(.*\)$/, "");
    if (gone.length === 0) return [];
    if (gone.length === g.columns.length && g.columns.length > 1) return [name];
    return gone.length === 1 && g.columns.length === 1
      ? [gone[0]?.title ?? name]
      : [`${name} ${gone.map((c) => c.header).join("/")}`];
  });
  const multiSeries =
    seriesOf !== undefined && new Set([...seriesOf.values()].map((s) => s.label)).size > 1;
  const showConcurrency = points.some((p) => p.concurrency !== null);
  const showRate = points.some((p) => p.requestRate !== null || p.requestRateUnbounded);
  const showMeasured = points.some((p) => p.measuredConcurrency !== null);
  const rateFormat = columnFormat(points.map((p) => p.requestRate));
  const measuredFormat = columnFormat(points.map((p) => p.measuredConcurrency));
  if (!showConcurrency) hidden.unshift("Concurrency");
  if (!showRate) hidden.unshift("Request rate");
  const stickyBg = (failed: boolean) =>
    failed ? "bg-[color-mix(in_srgb,var(--status-failed-bg)_40%,var(--card))]" : "bg-card";

  return (
    <div className="grid gap-2">
      <Table containerClassName="rounded-b-lg">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead
              colSpan={
                (multiSeries ? 1 : 0) +
                (showConcurrency ? 1 : 0) +
                (showMeasured ? 1 : 0) +
                (showRate ? 1 : 0) +
                sweep.keys.length +
                (sweep.showRunNumber ? 1 : 0) +
                1
              }
              className="sticky left-0 z-10 bg-card"
            >
              Load
            </TableHead>
            {groups.map((g) => (
              <TableHead
                key={g.header}
                colSpan={g.columns.length}
                className="border-l border-border text-center"
              >
                {g.header}
              </TableHead>
            ))}
          </TableRow>
          <TableRow className="hover:bg-transparent">
            {multiSeries && <TableHead className="sticky left-0 z-10 bg-card">Series</TableHead>}
            {showConcurrency && (
              <TableHead
                className={cn("text-right", !multiSeries && "sticky left-0 z-10 bg-card")}
                title="Configured max concurrency"
              >
                concurrency
              </TableHead>
            )}
            {showMeasured && (
              <TableHead className="text-right" title="Mean requests actually in flight">
                in flight
              </TableHead>
            )}
            {showRate && (
              <TableHead
                className="text-right"
                title="Offered request rate (req/s); max = unbounded"
              >
                rate (req/s)
              </TableHead>
            )}
            {sweep.keys.map((k) => (
              <TableHead
                key={`sweep:${k}`}
                className="text-right font-mono text-xs"
                title={`Swept parameter ${k}`}
              >
                {k}
              </TableHead>
            ))}
            {sweep.showRunNumber && (
              <TableHead
                className="text-right"
                title="Repeat of this combination (vllm bench sweep run_number)"
              >
                run #
              </TableHead>
            )}
            <TableHead>result</TableHead>
            {groups.map((g) =>
              g.columns.map((c, i) => (
                <TableHead
                  key={c.id}
                  title={c.title}
                  className={cn("text-right", i === 0 && "border-l border-border")}
                >
                  {c.header}
                </TableHead>
              )),
            )}
          </TableRow>
        </TableHeader>
        <TableBody>
          {paged.rows.map((p) => {
            const failed = isFailedPoint(p);
            const tag = seriesOf?.get(p.key);
            return (
              <TableRow
                key={p.key}
                className={cn(failed && "bg-failed-bg/40 hover:bg-failed-bg/60")}
              >
                {multiSeries && (
                  <TableCell className={cn("sticky left-0 z-10 max-w-64", stickyBg(failed))}>
                    <span className="flex items-center gap-1.5">
                      <span
                        aria-hidden
                        className="size-2 shrink-0 rounded-full"
                        style={{ background: tag?.color }}
                      />
                      <span className="truncate" title={tag?.label}>
                        {tag?.label}
                      </span>
                    </span>
                  </TableCell>
                )}
                {showConcurrency && (
                  <TableCell
                    className={cn(
                      "text-right font-medium",
                      !multiSeries && cn("sticky left-0 z-10", stickyBg(failed)),
                    )}
                  >
                    {p.concurrency === null ? <Missing /> : formatCount(p.concurrency)}
                  </TableCell>
                )}
                {showMeasured && (
                  <TableCell className="text-right">
                    {cell(p.measuredConcurrency, measuredFormat)}
                  </TableCell>
                )}
                {showRate && (
                  <TableCell className="text-right">
                    {p.requestRateUnbounded ? "max" : cell(p.requestRate, rateFormat)}
                  </TableCell>
                )}
                {sweep.keys.map((k) => (
                  <TableCell key={`sweep:${k}`} className="text-right">
                    {rawText(p.raw[k])}
                  </TableCell>
                ))}
                {sweep.showRunNumber && (
                  <TableCell className="text-right">{rawText(p.raw.run_number)}</TableCell>
                )}
                <TableCell>
                  <PointResult point={p} />
                </TableCell>
                {groups.map((g) =>
                  g.columns.map((c, i) => (
                    <TableCell
                      key={c.id}
                      className={cn(
                        "text-right",
                        i === 0 && "border-l border-border",
                        c.id === "outputTokPerS" && "font-medium",
                      )}
                    >
                      {cell(c.value(p), c.format)}
                    </TableCell>
                  )),
                )}
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <Pager paged={paged} noun="points" order="plain" />
      {hidden.length > 0 && (
        <p className="px-4 pb-3 text-xs text-muted-fg">
          Not measured in any point (columns hidden): {hidden.join(", ")}.
        </p>
      )}
    </div>
  );
}
