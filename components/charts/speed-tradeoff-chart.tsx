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
  niceYAxis,
  numericXAxisProps,
  TooltipFrame,
  valueYAxisProps,
  type SweepSeries,
} from "./sweep-chart-parts";

/** A sweep level placed by its per-request speed (x) and aggregate throughput (y). */
export interface TradeoffPoint {
  x: number;
  /** Per-request decode tok/s (1000 / median TPOT). */
  perRequestTokPerS: number;
  /** Aggregate output tok/s over all requests. */
  outputTokPerS: number;
  datum: SweepDatum;
}

/** The points of one series that have both speeds, in sweep order (so the line runs C=1 → C=max). */
export function tradeoffPoints(data: readonly SweepDatum[]): TradeoffPoint[] {
  const out: TradeoffPoint[] = [];
  for (const d of data)
    if (d.decodeTokPerS !== null && d.outputTokPerS !== null)
      out.push({
        x: d.x,
        perRequestTokPerS: d.decodeTokPerS,
        outputTokPerS: d.outputTokPerS,
        datum: d,
      });
  return out;
}

/**
 * "Throughput vs per-user speed": one point per concurrency level, aggregate output tok/s (y)
 * against per-request decode tok/s (x), joined in sweep order; up and right is better, and the
 * bend shows how much each user's speed is paid for more total throughput.
 */
export function SpeedTradeoffChart({
  series,
  scale,
  height = 300,
}: {
  series: SweepSeries[];
  scale: SweepScale;
  height?: number;
}) {
  const lines = series.map((s) => ({ ...s, points: tradeoffPoints(s.data) }));
  const all = lines.flatMap((l) => l.points);
  const x = niceYAxis(all.map((p) => p.perRequestTokPerS));
  const y = niceYAxis(all.map((p) => p.outputTokPerS));
  const label = `Aggregate output tok/s against per-request tok/s, one point per ${scale.kind === "concurrency" ? "concurrency" : "request rate"}`;
  const table = sweepTable(
    lines.map((l) => ({ label: l.label, data: l.points })),
    sweepAxisTitle(scale),
    (p) => sweepPointLabel(p.x, scale),
    [
      { title: "Per-request decode (tok/s)", value: (p) => formatNumber(p.perRequestTokPerS) },
      { title: "Aggregate output (tok/s)", value: (p) => formatNumber(p.outputTokPerS) },
    ],
  );
  return (
    <ChartFigure label={label} table={table} testId="speed-tradeoff-chart">
      {series.length > 1 && (
        <ChartLegend>
          {series.map((s) => (
            <LegendItem key={s.key} color={s.color} dashed={s.dash}>
              {s.label}
            </LegendItem>
          ))}
        </ChartLegend>
      )}
      {all.length === 0 ? (
        <ChartPlaceholder height={height}>
          Needs TPOT and output tok/s at each level
        </ChartPlaceholder>
      ) : (
        <LineChart
          responsive
          style={{ width: "100%", height }}
          margin={{ top: 8, right: 16, bottom: 4, left: 4 }}
        >
          <CartesianGrid stroke="var(--chart-grid)" />
          <XAxis
            {...numericXAxisProps({
              dataKey: "perRequestTokPerS",
              domain: x.domain,
              ticks: x.ticks,
              tickFormatter: (v) => formatNumber(v),
              title: "Per-request decode (tok/s)",
            })}
          />
          <YAxis
            {...valueYAxisProps({
              domain: y.domain,
              ticks: y.ticks,
              title: "Aggregate output (tok/s)",
            })}
          />
          <Tooltip
            isAnimationActive={false}
            content={(p) => {
              const pt = p.payload?.[0]?.payload as TradeoffPoint | undefined;
              if (!p.active || !pt) return null;
              return (
                <TooltipFrame title={sweepPointLabel(pt.x, scale)}>
                  <div>aggregate {formatTokPerS(pt.outputTokPerS)}</div>
                  <div>per request {formatTokPerS(pt.perRequestTokPerS)}</div>
                </TooltipFrame>
              );
            }}
          />
          {lines.map((l) => (
            <Line
              key={l.key}
              data={l.points}
              dataKey="outputTokPerS"
              name={l.label || "aggregate output tok/s"}
              type="linear"
              stroke={l.color}
              strokeWidth={2}
              strokeDasharray={l.dash}
              dot={{ r: 3, fill: l.color, strokeWidth: 0 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
    </ChartFigure>
  );
}
