"use client";

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

import { formatNumber, formatTokPerS } from "@/lib/format";
import {
  sweepAxisTitle,
  sweepPointLabel,
  type SweepDatum,
  type SweepScale,
} from "@/lib/metrics/benchmark-sweep";

import { ChartFigure, sweepTable } from "./chart-data";
import {
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  mergeSweepRows,
  niceYAxis,
  numericXAxisProps,
  rowValues,
  sweepXAxis,
  TooltipFrame,
  valueYAxisProps,
  type SweepRow,
  type SweepSeries,
} from "./sweep-chart-parts";

interface ThroughputChartProps {
  series: SweepSeries[];
  scale: SweepScale;
  /** Also draw per-request decode tok/s (1000 / median TPOT) as dashed lines on a right axis. */
  showDecode?: boolean;
  /** Plot height in px; fixed so live updates never move the page. */
  height?: number;
  /** Text shown instead of the plot when no point can be drawn. */
  emptyText?: string;
}

/**
 * "Output tok/s by concurrency": aggregate output tok/s per sweep level (solid, left axis) and,
 * optionally, per-request decode tok/s (dashed, right axis); x is log₂ concurrency or request rate.
 * Failed and non-finite points are never drawn.
 */
export function ThroughputChart({
  series,
  scale,
  showDecode = true,
  height = 300,
  emptyText = "No successful points to plot yet",
}: ThroughputChartProps) {
  const rows = mergeSweepRows(series, (d) => ({ agg: d.outputTokPerS, dec: d.decodeTokPerS }));
  const hasDecode = showDecode && series.some((s) => s.data.some((d) => d.decodeTokPerS !== null));
  const hasAgg = series.some((s) => s.data.some((d) => d.outputTokPerS !== null));
  const x = sweepXAxis(rows, scale);
  const multi = series.length > 1;
  const yAgg = niceYAxis(rowValues(rows, "agg"));
  const yDec = niceYAxis(rowValues(rows, "dec"));
  // One series: aggregate and per-request get distinct colours; several: colour = series, dash = metric.
  const decColor = (s: SweepSeries) => (multi ? s.color : "var(--chart-2)");

  return (
    <ChartFigure
      label={`Output tok/s by ${scale.kind === "concurrency" ? "concurrency" : "request rate"}`}
      testId="throughput-chart"
      table={sweepTable(series, sweepAxisTitle(scale), (d) => sweepPointLabel(d.x, scale), [
        { title: "Aggregate output (tok/s)", value: (d) => formatNumber(d.outputTokPerS) },
        ...(hasDecode
          ? [
              {
                title: "Per-request decode (tok/s)",
                value: (d: SweepDatum) => formatNumber(d.decodeTokPerS),
              },
            ]
          : []),
      ])}
    >
      <ChartLegend>
        {multi ? (
          series.map((s) => (
            <LegendItem key={s.key} color={s.color} dashed={s.dash}>
              {s.label}
            </LegendItem>
          ))
        ) : hasDecode ? (
          <LegendItem color={series[0]?.color ?? "var(--chart-1)"}>
            Aggregate output tok/s
          </LegendItem>
        ) : null}
        {hasDecode && (
          <>
            {multi && <LegendItem color="var(--chart-axis)">aggregate output tok/s</LegendItem>}
            <LegendItem color={multi ? "var(--chart-axis)" : "var(--chart-2)"} dashed>
              {multi ? "per-request" : "Per-request"} decode tok/s (1000 / median TPOT)
            </LegendItem>
          </>
        )}
      </ChartLegend>
      {!hasAgg && !hasDecode ? (
        <ChartPlaceholder height={height}>{emptyText}</ChartPlaceholder>
      ) : (
        <LineChart
          responsive
          data={rows}
          style={{ width: "100%", height }}
          margin={{ top: 8, right: hasDecode ? 8 : 16, bottom: 4, left: 4 }}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis
            {...numericXAxisProps({
              dataKey: "lx",
              domain: x.domain,
              ticks: x.ticks,
              tickFormatter: x.tickFormatter,
              title: sweepAxisTitle(scale),
            })}
          />
          <YAxis
            yAxisId="agg"
            {...valueYAxisProps({
              domain: yAgg.domain,
              ticks: yAgg.ticks,
              title: "Aggregate output (tok/s)",
            })}
          />
          {hasDecode && (
            <YAxis
              yAxisId="dec"
              {...valueYAxisProps({
                domain: yDec.domain,
                ticks: yDec.ticks,
                title: "Per-request decode (tok/s)",
                right: true,
              })}
            />
          )}
          <Tooltip
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
            content={(p) => (
              <ThroughputTooltip
                active={p.active}
                row={p.payload?.[0]?.payload as SweepRow | undefined}
                series={series}
                scale={scale}
                showDecode={hasDecode}
              />
            )}
            isAnimationActive={false}
          />
          {series.map((s, i) => (
            <Line
              key={`agg-${s.key}`}
              yAxisId="agg"
              type="linear"
              dataKey={`agg${i}`}
              name={s.label || "Aggregate output tok/s"}
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dash}
              dot={{ r: 3, fill: s.color, strokeWidth: 0, className: "dot-output-tok-s" }}
              activeDot={{ r: 5 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
          {hasDecode &&
            series.map((s, i) => (
              <Line
                key={`dec-${s.key}`}
                yAxisId="dec"
                type="linear"
                dataKey={`dec${i}`}
                name={`${s.label ? `${s.label} · ` : ""}per-request decode`}
                stroke={decColor(s)}
                strokeWidth={1.5}
                strokeDasharray="5 4"
                dot={{ r: 2.5, fill: "var(--card)", stroke: decColor(s), strokeWidth: 1.5 }}
                activeDot={{ r: 4 }}
                connectNulls
                isAnimationActive={false}
              />
            ))}
        </LineChart>
      )}
    </ChartFigure>
  );
}

function ThroughputTooltip({
  active,
  row,
  series,
  scale,
  showDecode,
}: {
  active?: boolean;
  row: SweepRow | undefined;
  series: SweepSeries[];
  scale: SweepScale;
  showDecode: boolean;
}) {
  if (!active || !row) return null;
  if (series.length === 1) {
    const d = row.pt0 as SweepDatum | undefined;
    if (!d) return null;
    return (
      <TooltipFrame title={sweepPointLabel(row.x, scale)}>
        <TooltipLine
          color={series[0]?.color}
          label="Aggregate output"
          value={formatTokPerS(d.point.outputTokPerS)}
        />
        {showDecode && (
          <TooltipLine
            color="var(--chart-2)"
            dashed
            label="Per-request decode"
            value={formatTokPerS(d.decodeTokPerS)}
          />
        )}
      </TooltipFrame>
    );
  }
  return (
    <TooltipFrame title={sweepPointLabel(row.x, scale)}>
      {series.map((s, i) => {
        const d = row[`pt${i}`] as SweepDatum | undefined;
        if (!d) return null;
        return (
          <TooltipLine
            key={s.key}
            color={s.color}
            label={s.label}
            value={`${formatTokPerS(d.point.outputTokPerS)}${showDecode && d.decodeTokPerS !== null ? ` · ${formatNumber(d.decodeTokPerS)}/req` : ""}`}
          />
        );
      })}
    </TooltipFrame>
  );
}

function TooltipLine({
  color,
  dashed,
  label,
  value,
}: {
  color?: string;
  dashed?: boolean;
  label: string;
  value: string;
}) {
  return (
    <div className="flex items-baseline gap-2">
      <span
        aria-hidden
        className={
          dashed
            ? "h-0 w-2.5 shrink-0 -translate-y-0.5 border-t-2 border-dashed"
            : "size-2 shrink-0 translate-y-px rounded-full"
        }
        style={dashed ? { borderColor: color } : { background: color }}
      />
      <span className="max-w-64 truncate">{label}</span>
      <span className="ml-auto pl-3 font-medium text-foreground">{value}</span>
    </div>
  );
}
