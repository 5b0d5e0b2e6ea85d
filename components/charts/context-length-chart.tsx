"use client";

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

import { formatCount, formatTokPerS } from "@/lib/format";
import {
  formatLatencyIn,
  latencyIn,
  metricLatenciesMs,
  type LatencyUnit,
} from "@/lib/latency-unit";
import { contextAxis, contextAxisTitle, type LongContextDatum } from "@/lib/metrics/long-context";

import { ChartFigure, sweepTable } from "./chart-data";
import { useLatencyUnit } from "./latency-unit";
import {
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  mergeSweepRows,
  niceYAxis,
  numericXAxisProps,
  p99LineProps,
  rowValues,
  TooltipFrame,
  valueYAxisProps,
  type SweepRow,
} from "./sweep-chart-parts";

/** One line group on a context-length chart (a run, or one series of a run). */
export interface ContextSeries {
  key: string;
  label: string;
  /** CSS colour, e.g. `var(--chart-3)`. */
  color: string;
  /** SVG dash pattern of the main line (several series of one run share a colour); solid when absent. */
  dash?: string;
  data: LongContextDatum[];
}

type Metric = "ttft" | "decode";

interface ContextLengthChartProps {
  /** `ttft`: TTFT median (solid) and p99 (dashed); `decode`: per-request decode tok/s (1000 / median TPOT). */
  metric: Metric;
  series: ContextSeries[];
  /** Plot height in px (fixed, so live updates never move the page). */
  height?: number;
  /** Name the series in the legend even when there is one (the compare page names every run). */
  legend?: boolean;
  /** TTFT: also draw p99 (dashed) when measured; off keeps an overlay of many runs readable. */
  showP99?: boolean;
}

/**
 * "TTFT by context length" or "Decode tok/s by context length": one line per series over the
 * prompt length in tokens (linear axis from 0 for a span under tenfold, else log₂; see
 * `contextAxis`). TTFT is in the page's latency unit (components/charts/latency-unit.tsx; alone, the
 * unit its own points call for). Failed points are never drawn; tooltips give exact values.
 */
export function ContextLengthChart({
  metric,
  series,
  height = 260,
  legend = false,
  showP99 = true,
}: ContextLengthChartProps) {
  const unit = useLatencyUnit(
    "ttft",
    series.flatMap((s) =>
      metricLatenciesMs(
        s.data.map((d) => d.point),
        "ttft",
      ),
    ),
  );
  // TPOT (tables, tooltips) in its own unit: 18.2 ms, never "0.0182 s" beside TTFTs in seconds.
  const tpotUnit = useLatencyUnit(
    "tpot",
    series.flatMap((s) =>
      metricLatenciesMs(
        s.data.map((d) => d.point),
        "tpot",
      ),
    ),
  );
  const scaleY = (v: number | null) => latencyIn(v, unit);
  const rows = mergeSweepRows(series, (d): Record<string, number | null> => {
    const lc = d as LongContextDatum;
    return metric === "ttft"
      ? { med: scaleY(lc.ttftMsMedian), p99: scaleY(lc.ttftMsP99) }
      : { med: lc.decodeTokPerS };
  });
  const axis = contextAxis(rows.map((r) => r.x));
  const plotRows = rows.map((r) => ({ ...r, pos: axis.position(r.x) }));
  const values = [...rowValues(rows, "med"), ...(showP99 ? rowValues(rows, "p99") : [])];
  const y = niceYAxis(values);
  const hasData = values.length > 0;
  const hasP99 = showP99 && metric === "ttft" && rowValues(rows, "p99").length > 0;
  const multi = series.length > 1 || (legend && series.length > 0);
  const first = series[0]?.color ?? "var(--chart-1)";
  const yTitle = metric === "ttft" ? `TTFT (${unit})` : "Decode (tok/s per request)";
  const tpotZero = series.some((s) => s.data.some((d) => d.point.tpotMsMedian === 0));
  // A measured 0 ms is a value (issue 19): say so rather than "not measured".
  const missing =
    metric === "ttft"
      ? "TTFT was not measured (non-streaming run)"
      : tpotZero
        ? "Median TPOT measured as 0 ms: decode speed has no finite value"
        : "TPOT was not measured, so decode speed is unknown";
  const testId = metric === "ttft" ? "context-ttft-chart" : "context-decode-chart";
  const label =
    metric === "ttft"
      ? `TTFT by context length, median${hasP99 ? " and p99" : ""} (${unit})`
      : "Decode tok/s per request by context length";
  const table = sweepTable(
    series,
    "Input tokens",
    (d) => formatCount(d.x),
    metric === "ttft"
      ? [
          {
            title: `TTFT median (${unit})`,
            value: (d) => formatLatencyIn((d as LongContextDatum).ttftMsMedian, unit),
          },
          ...(hasP99
            ? [
                {
                  title: `TTFT p99 (${unit})`,
                  value: (d: LongContextDatum) => formatLatencyIn(d.ttftMsP99, unit),
                },
              ]
            : []),
        ]
      : [
          {
            title: "Decode (tok/s per request)",
            value: (d) => formatTokPerS((d as LongContextDatum).decodeTokPerS),
          },
          {
            title: `TPOT median (${tpotUnit})`,
            value: (d) => formatLatencyIn(d.point.tpotMsMedian, tpotUnit),
          },
        ],
  );

  return (
    <ChartFigure label={label} table={hasData ? table : null} testId={testId}>
      <ChartLegend>
        {multi &&
          series.map((s) => (
            <LegendItem key={s.key} color={s.color} dashed={s.dash}>
              {s.label}
            </LegendItem>
          ))}
        {metric === "ttft" ? (
          <>
            {(hasP99 || !multi) && (
              <LegendItem color={multi ? "var(--chart-axis)" : first}>median</LegendItem>
            )}
            {hasP99 && (
              <LegendItem color={multi ? "var(--chart-axis)" : first} dashed>
                p99
              </LegendItem>
            )}
          </>
        ) : (
          !multi && (
            <LegendItem color={first}>decode tok/s per request (1000 / median TPOT)</LegendItem>
          )
        )}
      </ChartLegend>
      {!hasData ? (
        <ChartPlaceholder height={height}>{missing}</ChartPlaceholder>
      ) : (
        <LineChart
          responsive
          data={plotRows}
          style={{ width: "100%", height }}
          margin={{ top: 8, right: 16, bottom: 4, left: 4 }}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis
            {...numericXAxisProps({
              dataKey: "pos",
              domain: axis.domain,
              ticks: axis.ticks,
              tickFormatter: axis.tickLabel,
              title: contextAxisTitle(axis),
            })}
          />
          <YAxis {...valueYAxisProps({ domain: y.domain, ticks: y.ticks, title: yTitle })} />
          <Tooltip
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
            content={(p) => (
              <ContextTooltip
                active={p.active}
                row={p.payload?.[0]?.payload as SweepRow | undefined}
                metric={metric}
                series={series}
                unit={unit}
                tpotUnit={tpotUnit}
              />
            )}
            isAnimationActive={false}
          />
          {series.map((s, i) => (
            <Line
              key={`med-${s.key}`}
              type="linear"
              dataKey={`med${i}`}
              name={`${s.label ? `${s.label} · ` : ""}${metric === "ttft" ? "median" : "decode tok/s"}`}
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dash}
              dot={{ r: 3, fill: s.color, strokeWidth: 0, className: `dot-context-${metric}` }}
              activeDot={{ r: 5 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
          {hasP99 && series.map((s, i) => <Line key={`p99-${s.key}`} {...p99LineProps(s, i)} />)}
        </LineChart>
      )}
    </ChartFigure>
  );
}

function ContextTooltip({
  active,
  row,
  metric,
  series,
  unit,
  tpotUnit,
}: {
  active?: boolean;
  row: SweepRow | undefined;
  metric: Metric;
  series: ContextSeries[];
  unit: LatencyUnit;
  tpotUnit: LatencyUnit;
}) {
  if (!active || !row) return null;
  return (
    <TooltipFrame title={`${formatCount(row.x)} input tokens`}>
      {series.map((s, i) => {
        const d = row[`pt${i}`] as LongContextDatum | undefined;
        if (!d) return null;
        return (
          <div key={s.key} className="flex items-baseline gap-2">
            <span
              aria-hidden
              className="size-2 shrink-0 translate-y-px rounded-full"
              style={{ background: s.color }}
            />
            {series.length > 1 && <span className="max-w-56 truncate">{s.label}</span>}
            {metric === "ttft" ? (
              <>
                <span className="ml-auto pl-2">
                  median{" "}
                  <span className="text-foreground">
                    {formatLatencyIn(d.point.ttftMsMedian, unit)}
                  </span>
                </span>
                <span>
                  p99{" "}
                  <span className="text-foreground">
                    {formatLatencyIn(d.point.ttftMsP99, unit)}
                  </span>
                </span>
              </>
            ) : (
              <>
                <span className="ml-auto pl-2 text-foreground">
                  {formatTokPerS(d.decodeTokPerS)}
                </span>
                <span title="median time per output token">
                  TPOT {formatLatencyIn(d.point.tpotMsMedian, tpotUnit)}
                </span>
                <span title="aggregate output tok/s of the level">
                  out {formatTokPerS(d.point.outputTokPerS)}
                </span>
              </>
            )}
          </div>
        );
      })}
    </TooltipFrame>
  );
}
