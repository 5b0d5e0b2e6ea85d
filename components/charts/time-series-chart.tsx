"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";

import { formatClock, formatClockSeconds } from "@/components/pipelines/units";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { formatCompact } from "@/lib/format";

import { metricYAxis } from "./metric-chart";
import {
  axisLabelStyle,
  axisTick,
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  niceYAxis,
  TooltipFrame,
} from "./sweep-chart-parts";

/** One line of a time chart. */
export interface TimeSeries {
  key: string;
  label: string;
  color: string;
  points: ReadonlyArray<{ tMs: number; value: number | null }>;
}

interface TimeSeriesChartProps {
  series: readonly TimeSeries[];
  /** x range, epoch ms (e.g. the last hour). */
  fromMs: number;
  toMs: number;
  /** Axis title with unit, e.g. "GPU utilisation (%)". */
  yLabel: string;
  /** Fixed y range (e.g. [0, 100] for percentages); default: 0 to a round value above the data. */
  yDomain?: [number, number];
  /** Top of the y axis at least this (e.g. total memory), rounded up. */
  yMax?: number;
  /** Fit the y axis to the data instead of starting at 0 (temperatures). */
  fit?: boolean;
  /** Tooltip value text. */
  format: (v: number) => string;
  height?: number;
  /** Readings further apart than this (ms) are not joined. */
  maxGapMs?: number;
  emptyText?: string;
  testId?: string;
  /** Labelled vertical lines (e.g. where each concurrency level of a sweep began), epoch ms. */
  markers?: ReadonlyArray<{ tMs: number; label: string }>;
  /** Charts with the same id share one crosshair and tooltip time (recharts `syncId`, matched by time). */
  syncId?: string;
}

type Row = { tMs: number } & Record<string, number | null>;

/** Four even steps over a fixed `[lo, hi]` y domain: [0, 100] → 0, 25, 50, 75, 100. */
export function evenTicks(
  domain: readonly [number, number],
  intervals = 4,
): { domain: [number, number]; ticks: number[] } {
  const [lo, hi] = domain;
  const step = (hi - lo) / intervals;
  return {
    domain: [lo, hi],
    ticks: Array.from({ length: intervals + 1 }, (_, i) => Number((lo + i * step).toPrecision(12))),
  };
}

/** Round clock ticks (every 5/10/15/30/60 min…) across [from, to]. */
export function timeTicks(fromMs: number, toMs: number, target = 6): number[] {
  const steps = [
    60e3,
    2 * 60e3,
    5 * 60e3,
    10 * 60e3,
    15 * 60e3,
    30 * 60e3,
    3600e3,
    2 * 3600e3,
    3 * 3600e3,
    6 * 3600e3,
    12 * 3600e3,
    86_400e3,
  ];
  const span = Math.max(1, toMs - fromMs);
  const step =
    steps.find((s) => span / s <= target) ?? Math.ceil(span / target / 86_400e3) * 86_400e3;
  const ticks: number[] = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) ticks.push(t);
  return ticks;
}

/**
 * Several series over clock time (one line each, legend when more than one), with gaps where
 * readings are missing. The time zone is the person's chosen one, else the browser's once hydrated (UTC in the server render).
 */
export function TimeSeriesChart({
  series,
  fromMs,
  toMs,
  yLabel,
  yDomain,
  yMax,
  fit = false,
  format,
  height = 180,
  maxGapMs = 150_000,
  emptyText = "No readings in this period",
  testId,
  markers = [],
  syncId,
}: TimeSeriesChartProps) {
  const zone = useTimeZone();
  // Rows by time; a null row after a gap breaks the lines there.
  const byT = new Map<number, Row>();
  series.forEach((s, i) => {
    let prev: number | null = null;
    for (const p of s.points) {
      if (prev !== null && p.tMs - prev > maxGapMs) {
        const gapT = prev + 1;
        const gap = byT.get(gapT) ?? ({ tMs: gapT } as Row);
        gap[`s${i}`] = null;
        byT.set(gapT, gap);
      }
      const row = byT.get(p.tMs) ?? ({ tMs: p.tMs } as Row);
      row[`s${i}`] = p.value !== null && Number.isFinite(p.value) ? p.value : null;
      byT.set(p.tMs, row);
      prev = p.tMs;
    }
  });
  const rows = [...byT.values()].sort((a, b) => a.tMs - b.tMs);
  const values = rows.flatMap((r) => series.map((_, i) => r[`s${i}`]));
  const numbers = values.filter((v): v is number => typeof v === "number");
  // Explicit, evenly spaced ticks everywhere (recharts' own dropped 75 of 0–100 on a short chart: 0, 25, 50, 100; issue 25).
  const y = yDomain
    ? evenTicks(yDomain)
    : fit
      ? metricYAxis(numbers)
      : niceYAxis(yMax !== undefined ? [...numbers, yMax] : numbers);
  const hasData = values.some((v) => typeof v === "number");

  return (
    <div className="grid gap-2" data-testid={testId}>
      {series.length > 1 && (
        <ChartLegend>
          {series.map((s) => (
            <LegendItem key={s.key} color={s.color}>
              {s.label}
            </LegendItem>
          ))}
        </ChartLegend>
      )}
      {!hasData ? (
        <ChartPlaceholder height={height}>{emptyText}</ChartPlaceholder>
      ) : (
        <LineChart
          responsive
          data={rows}
          syncId={syncId}
          syncMethod="value"
          style={{ width: "100%", height }}
          margin={{ top: 6, right: 12, bottom: 0, left: 4 }}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis
            type="number"
            dataKey="tMs"
            domain={[fromMs, toMs]}
            ticks={timeTicks(fromMs, toMs)}
            tickFormatter={(t: number) => formatClock(t, zone)}
            tick={axisTick}
            tickLine={false}
            axisLine={{ stroke: "var(--chart-grid)" }}
            allowDataOverflow
          />
          <YAxis
            domain={y.domain}
            ticks={y.ticks}
            interval={0}
            tickFormatter={formatCompact}
            tick={axisTick}
            tickLine={false}
            axisLine={false}
            width={48}
            label={{
              value: yLabel,
              angle: -90,
              position: "insideLeft",
              offset: 6,
              style: axisLabelStyle,
            }}
          />
          <Tooltip
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
            isAnimationActive={false}
            content={(p) => {
              const row = p.payload?.[0]?.payload as Row | undefined;
              if (!p.active || !row) return null;
              return (
                <TooltipFrame title={formatClockSeconds(row.tMs, zone)}>
                  {series.map((s, i) => {
                    const v = row[`s${i}`];
                    return typeof v === "number" ? (
                      <div key={s.key} className="flex items-baseline gap-2">
                        <span
                          aria-hidden
                          className="size-2 shrink-0 translate-y-px rounded-full"
                          style={{ background: s.color }}
                        />
                        <span className="truncate">{s.label}</span>
                        <span className="ml-auto pl-3 font-medium text-foreground">
                          {format(v)}
                        </span>
                      </div>
                    ) : null;
                  })}
                </TooltipFrame>
              );
            }}
          />
          {markers.map((m, i) => (
            <ReferenceLine
              key={`m${i}`}
              x={m.tMs}
              stroke="var(--chart-axis)"
              strokeDasharray="2 3"
              label={{
                value: m.label,
                position: "insideTopLeft",
                fill: "var(--chart-axis)",
                fontSize: 10,
              }}
            />
          ))}
          {series.map((s, i) => (
            <Line
              key={s.key}
              type="linear"
              dataKey={`s${i}`}
              name={s.label}
              stroke={s.color}
              strokeWidth={1.75}
              dot={false}
              activeDot={{ r: 3 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
    </div>
  );
}
