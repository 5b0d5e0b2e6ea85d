"use client";

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

import {
  formatLatencyIn,
  latencyIn,
  metricLatenciesMs,
  type LatencyUnit,
} from "@/lib/latency-unit";
import {
  plottable,
  sweepAxisTitle,
  sweepPointLabel,
  type SweepDatum,
  type SweepScale,
} from "@/lib/metrics/benchmark-sweep";

import { ChartFigure, sweepTable } from "./chart-data";
import { useLatencyUnit } from "./latency-unit";
import { LogYToggle } from "./log-y-toggle";
import {
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  logYAxis,
  mergeSweepRows,
  niceYAxis,
  numericXAxisProps,
  p99LineProps,
  rowValues,
  sweepXAxis,
  TooltipFrame,
  valueYAxisProps,
  type SweepRow,
  type SweepSeries,
} from "./sweep-chart-parts";
import { useChartViewUrl } from "./use-chart-view-url";

type Metric = "ttft" | "tpot" | "itl";

type PointField =
  "ttftMsMedian" | "ttftMsP99" | "tpotMsMedian" | "tpotMsP99" | "itlMsMedian" | "itlMsP99";

const METRICS: Record<
  Metric,
  {
    title: string;
    name: string;
    median: (d: SweepDatum) => number | null;
    p99: (d: SweepDatum) => number | null;
    fields: [PointField, PointField];
    missing: string;
  }
> = {
  ttft: {
    title: "Time to first token",
    name: "TTFT",
    median: (d) => plottable(d.point.ttftMsMedian),
    p99: (d) => plottable(d.point.ttftMsP99),
    fields: ["ttftMsMedian", "ttftMsP99"],
    missing: "TTFT was not measured",
  },
  tpot: {
    title: "Time per output token",
    name: "TPOT",
    median: (d) => plottable(d.point.tpotMsMedian),
    p99: (d) => plottable(d.point.tpotMsP99),
    fields: ["tpotMsMedian", "tpotMsP99"],
    missing: "TPOT was not measured (non-streaming run, or an older writer without TPOT)",
  },
  itl: {
    title: "Inter-token latency (TPOT not reported)",
    name: "ITL",
    median: (d) => plottable(d.point.itlMsMedian),
    p99: (d) => plottable(d.point.itlMsP99),
    fields: ["itlMsMedian", "itlMsP99"],
    missing: "Neither TPOT nor ITL was measured (non-streaming run)",
  },
};

interface LatencyChartProps {
  series: SweepSeries[];
  scale: SweepScale;
  /** Height of each panel's plot in px (fixed). */
  height?: number;
}

/** The `logy=` entry of the latency charts (not a metric key: metric keys come from workers, and "@" marks this one as the page's own). */
export const LATENCY_LOG_KEY = "@latency";

/**
 * "Latency by concurrency": TTFT and TPOT side by side, median solid and p99 dashed, in each metric's
 * latency unit (ms or s, see components/charts/latency-unit.tsx), on the
 * same log₂ x axis as the throughput chart. A "Log y" toggle puts both y axes on a log₁₀ scale
 * (latencies that span decades: 93 ms at C=1 against 9.9 s at C=128), kept in the page URL
 * (`logy=` holds {@link LATENCY_LOG_KEY}) so a reload or shared link keeps it. Failed points are left out.
 */
export function LatencyChart({ series, scale, height = 240 }: LatencyChartProps) {
  const { view, toggleLogKey } = useChartViewUrl();
  const logY = view.logKeys.has(LATENCY_LOG_KEY);
  const setLogY = (on: boolean) => toggleLogKey(LATENCY_LOG_KEY, on);
  const multi = series.length > 1;
  // Older SGLang writers report ITL but no TPOT; ITL is the closest per-token latency then.
  const has = (m: Metric) =>
    series.some((s) =>
      s.data.some((d) => METRICS[m].median(d) !== null || METRICS[m].p99(d) !== null),
    );
  const tpotOrItl: Metric = !has("tpot") && has("itl") ? "itl" : "tpot";
  const hasP99 = series.some((s) =>
    s.data.some((d) => METRICS.ttft.p99(d) !== null || METRICS[tpotOrItl].p99(d) !== null),
  );
  return (
    <div className="grid gap-2">
      <ChartLegend>
        {multi &&
          series.map((s) => (
            <LegendItem key={s.key} color={s.color}>
              {s.label}
            </LegendItem>
          ))}
        <LegendItem color={multi ? "var(--chart-axis)" : (series[0]?.color ?? "var(--chart-1)")}>
          median
        </LegendItem>
        {hasP99 && (
          <LegendItem
            color={multi ? "var(--chart-axis)" : (series[0]?.color ?? "var(--chart-1)")}
            dashed
          >
            p99
          </LegendItem>
        )}
        <LogYToggle on={logY} onChange={setLogY} testId="latency-log-y" className="ml-auto" />
      </ChartLegend>
      <div className="grid gap-4 xl:grid-cols-2">
        <LatencyPanel metric="ttft" series={series} scale={scale} height={height} logY={logY} />
        <LatencyPanel
          metric={tpotOrItl}
          series={series}
          scale={scale}
          height={height}
          logY={logY}
        />
      </div>
    </div>
  );
}

function LatencyPanel({
  metric,
  series,
  scale,
  height,
  logY,
}: {
  metric: Metric;
  series: SweepSeries[];
  scale: SweepScale;
  height: number;
  logY: boolean;
}) {
  const m = METRICS[metric];
  // Each panel in its metric's unit: a TPOT of 18 ms stays in ms beside TTFTs in seconds.
  const unit = useLatencyUnit(
    metric,
    series.flatMap((s) =>
      metricLatenciesMs(
        s.data.map((d) => d.point),
        metric,
      ),
    ),
  );
  const axis = `${m.name} (${unit})`;
  // On a log axis 0 cannot be drawn: such values are left off the plot (the data table keeps them).
  const rows = mergeSweepRows(series, (d) => ({
    med: positive(latencyIn(m.median(d), unit), logY),
    p99: positive(latencyIn(m.p99(d), unit), logY),
  }));
  const hasData = rows.some((r) =>
    Object.entries(r).some(
      ([k, v]) => (k.startsWith("med") || k.startsWith("p99")) && typeof v === "number",
    ),
  );
  const x = sweepXAxis(rows, scale);
  const values = [...rowValues(rows, "med"), ...rowValues(rows, "p99")];
  const y = (logY ? logYAxis(values) : null) ?? niceYAxis(values);
  const label = `${m.title} by ${scale.kind === "concurrency" ? "concurrency" : "request rate"}, median and p99 (${unit})`;
  const table = sweepTable(series, sweepAxisTitle(scale), (d) => sweepPointLabel(d.x, scale), [
    { title: `${m.name} median (${unit})`, value: (d) => formatLatencyIn(m.median(d), unit) },
    { title: `${m.name} p99 (${unit})`, value: (d) => formatLatencyIn(m.p99(d), unit) },
  ]);
  return (
    <ChartFigure label={label} table={table} className="grid gap-1">
      <figcaption className="text-xs font-medium text-muted-fg">{m.title}</figcaption>
      {!hasData ? (
        <ChartPlaceholder height={height}>{m.missing}</ChartPlaceholder>
      ) : (
        <LineChart
          responsive
          data={rows}
          style={{ width: "100%", height }}
          margin={{ top: 8, right: 16, bottom: 4, left: 4 }}
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
            {...valueYAxisProps({ domain: y.domain, ticks: y.ticks, title: axis })}
            {...(logY ? { scale: "log" as const, allowDataOverflow: true } : {})}
          />
          <Tooltip
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
            content={(p) => (
              <LatencyTooltip
                active={p.active}
                row={p.payload?.[0]?.payload as SweepRow | undefined}
                metric={metric}
                series={series}
                scale={scale}
                unit={unit}
              />
            )}
            isAnimationActive={false}
          />
          {series.map((s, i) => (
            <Line
              key={`med-${s.key}`}
              type="linear"
              dataKey={`med${i}`}
              name={`${s.label ? `${s.label} · ` : ""}median`}
              stroke={s.color}
              strokeWidth={2}
              dot={{ r: 2.5, fill: s.color, strokeWidth: 0 }}
              activeDot={{ r: 4 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
          {series.map((s, i) => (
            <Line key={`p99-${s.key}`} {...p99LineProps(s, i)} />
          ))}
        </LineChart>
      )}
    </ChartFigure>
  );
}

function positive(v: number | null, logY: boolean): number | null {
  return logY && v !== null && v <= 0 ? null : v;
}

function LatencyTooltip({
  active,
  row,
  metric,
  series,
  scale,
  unit,
}: {
  active?: boolean;
  row: SweepRow | undefined;
  metric: Metric;
  series: SweepSeries[];
  scale: SweepScale;
  unit: LatencyUnit;
}) {
  if (!active || !row) return null;
  const m = METRICS[metric];
  return (
    <TooltipFrame title={`${m.name} at ${sweepPointLabel(row.x, scale)}`}>
      {series.map((s, i) => {
        const d = row[`pt${i}`] as SweepDatum | undefined;
        if (!d) return null;
        return (
          <div key={s.key} className="flex items-baseline gap-2">
            <span
              aria-hidden
              className="size-2 shrink-0 translate-y-px rounded-full"
              style={{ background: s.color }}
            />
            {series.length > 1 && <span className="max-w-56 truncate">{s.label}</span>}
            <span className="ml-auto pl-2">
              median{" "}
              <span className="text-foreground">{formatLatencyIn(d.point[m.fields[0]], unit)}</span>
            </span>
            <span>
              p99{" "}
              <span className="text-foreground">{formatLatencyIn(d.point[m.fields[1]], unit)}</span>
            </span>
          </div>
        );
      })}
    </TooltipFrame>
  );
}
