"use client";

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

import { formatCompact, formatNumber } from "@/lib/format";
import {
  overlayRows,
  overlayValues,
  type StepRow,
  type StepSeriesInput,
} from "@/lib/metrics/step-overlay";

import { ChartFigure } from "./chart-data";
import { formatAxisValue, formatStep, metricYAxis, roundTicks } from "./metric-chart";
import {
  axisLabelStyle,
  axisTick,
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  logYAxis,
  TooltipFrame,
} from "./sweep-chart-parts";

/** One run's series of the overlaid metric key. */
export interface OverlaySeries extends StepSeriesInput {
  /** Unique key (the run id). */
  key: string;
  label: string;
  color: string;
}

/**
 * One metric key by step for several runs ("loss by step", one colour per run): with a smoothing
 * weight > 0 each run draws its EMA-smoothed line solid and its raw values faint behind it (as in
 * W&B and TensorBoard); with `logY` the y axis is log₁₀ (values ≤ 0 left off). Non-finite values
 * are not drawn (the caller notes them). Named for screen readers, with the raw values in its data table.
 */
export function OverlayMetricChart({
  metricKey,
  series,
  smoothing,
  logY,
  height = 240,
}: {
  metricKey: string;
  series: readonly OverlaySeries[];
  smoothing: number;
  logY: boolean;
  height?: number;
}) {
  const rows = overlayRows(series, smoothing, logY);
  const values = overlayValues(rows);
  const y = (logY ? logYAxis(values) : null) ?? metricYAxis(values);
  const logAxis = logY && y.domain[0] > 0;
  const xs = rows.map((r) => r.x);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const yStep = (y.ticks[1] ?? 1) - (y.ticks[0] ?? 0);
  const smoothed = smoothing > 0;
  if (values.length === 0)
    return <ChartPlaceholder height={height}>No finite points</ChartPlaceholder>;
  const table = {
    columns: ["Step", ...series.map((s) => s.label)],
    rows: rows.map((r) => [
      formatStep(r.x),
      ...series.map((_, i) => formatNumber(r[`r${i}`] ?? null)),
    ]),
  };
  return (
    <ChartFigure
      label={`${metricKey} by step, ${series.length} runs${smoothed ? ", smoothed" : ""}${logAxis ? ", log scale" : ""}`}
      table={table}
      testId="overlay-chart"
      dataKey={metricKey}
      points={rows.length}
    >
      <ChartLegend>
        {series.map((s) => (
          <LegendItem key={s.key} color={s.color}>
            {s.label}
          </LegendItem>
        ))}
      </ChartLegend>
      <LineChart
        responsive
        data={rows}
        style={{ width: "100%", height }}
        margin={{ top: 10, right: 14, bottom: 4, left: 4 }}
      >
        <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
        <XAxis
          type="number"
          dataKey="x"
          domain={xMin === xMax ? [xMin - 1, xMax + 1] : [xMin, xMax]}
          ticks={xMin === xMax ? [xMin] : roundTicks(xMin, xMax, 4)}
          tickFormatter={formatCompact}
          tick={axisTick}
          tickLine={false}
          axisLine={{ stroke: "var(--chart-grid)" }}
          height={36}
          label={{ value: "step", position: "insideBottom", offset: 0, style: axisLabelStyle }}
          allowDecimals={false}
        />
        <YAxis
          domain={y.domain}
          ticks={y.ticks}
          scale={logAxis ? "log" : "auto"}
          tickFormatter={(v: number) => formatAxisValue(v, logAxis ? v : yStep)}
          tick={axisTick}
          tickLine={false}
          axisLine={false}
          width={52}
          allowDataOverflow
        />
        <Tooltip
          cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
          isAnimationActive={false}
          content={(p) => {
            const row = p.payload?.[0]?.payload as StepRow | undefined;
            if (!p.active || !row) return null;
            return (
              <TooltipFrame title={`step ${formatStep(row.x)}`}>
                {series.map((s, i) => {
                  const raw = row[`r${i}`];
                  const sm = row[`s${i}`];
                  if (typeof raw !== "number") return null;
                  return (
                    <div key={s.key} className="flex items-baseline gap-2">
                      <span
                        aria-hidden
                        className="size-2 shrink-0 translate-y-px rounded-full"
                        style={{ background: s.color }}
                      />
                      <span className="truncate">{s.label}</span>
                      <span className="ml-auto pl-3 font-medium text-foreground">
                        {formatNumber(smoothed && typeof sm === "number" ? sm : raw)}
                      </span>
                      {smoothed && <span className="text-muted-fg">raw {formatNumber(raw)}</span>}
                    </div>
                  );
                })}
              </TooltipFrame>
            );
          }}
        />
        {smoothed &&
          series.map((s, i) => (
            <Line
              key={`raw-${s.key}`}
              className="overlay-raw"
              type="linear"
              dataKey={`r${i}`}
              stroke={s.color}
              strokeOpacity={0.25}
              strokeWidth={1}
              dot={false}
              activeDot={false}
              connectNulls
              isAnimationActive={false}
              legendType="none"
            />
          ))}
        {series.map((s, i) => (
          <Line
            key={`main-${s.key}`}
            className="overlay-main"
            type="linear"
            dataKey={smoothed ? `s${i}` : `r${i}`}
            name={s.label}
            stroke={s.color}
            strokeWidth={1.75}
            dot={false}
            activeDot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartFigure>
  );
}
