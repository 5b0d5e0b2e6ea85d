"use client";

import { Bar, BarChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";

import {
  axisLabelStyle,
  axisTick,
  ChartPlaceholder,
  niceYAxis,
  TooltipFrame,
} from "@/components/charts/sweep-chart-parts";
import type { TauDistribution } from "@/lib/metrics/tau";

import { formatTau } from "./format";

interface Row {
  bin: string;
  lo: number;
  hi: number;
  count: number;
}

function binLabel(lo: number, hi: number): string {
  return `${formatTau(lo)}–${formatTau(hi)}`;
}

/**
 * "Per-prompt τ": how many results (prompts or prompt groups) fall in each τ bin, each counted once
 * whatever its length, with the checkpoint's τ (Σ tokens / Σ verify steps) marked on its bin. The
 * caption below gives the quantiles and the unweighted mean of prompts, labelled as such.
 */
export function TauHistogram({
  distribution,
  checkpointTau,
  height = 220,
}: {
  distribution: TauDistribution | null;
  checkpointTau: number | null;
  height?: number;
}) {
  if (!distribution)
    return <ChartPlaceholder height={height + 20}>No prompts scored yet</ChartPlaceholder>;
  const rows: Row[] = distribution.bins.map((b) => ({
    bin: binLabel(b.lo, b.hi),
    lo: b.lo,
    hi: b.hi,
    count: b.count,
  }));
  // Counts are whole prompts: integer ticks only (0, 1, 2 rather than 0, 0.25, 0.5).
  const maxCount = Math.max(...rows.map((r) => r.count));
  const y =
    maxCount <= 4
      ? {
          domain: [0, maxCount] as [number, number],
          ticks: Array.from({ length: maxCount + 1 }, (_, i) => i),
        }
      : niceYAxis(rows.map((r) => r.count));
  const last = rows.length - 1;
  const tauBin =
    checkpointTau === null
      ? undefined
      : rows.find((r, i) => checkpointTau >= r.lo && (checkpointTau < r.hi || i === last));

  return (
    <div className="grid gap-2">
      <div data-testid="tau-histogram">
        <BarChart
          responsive
          data={rows}
          style={{ width: "100%", height }}
          margin={{ top: 18, right: 14, bottom: 4, left: 4 }}
          barCategoryGap={1}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis
            dataKey="bin"
            tick={axisTick}
            tickLine={false}
            axisLine={{ stroke: "var(--chart-grid)" }}
            height={36}
            tickFormatter={(v: string) => v.split("–")[0] ?? v}
            label={{
              value: "per-prompt τ",
              position: "insideBottom",
              offset: 0,
              style: axisLabelStyle,
            }}
          />
          <YAxis
            domain={y.domain}
            ticks={y.ticks}
            allowDecimals={false}
            tick={axisTick}
            tickLine={false}
            axisLine={false}
            width={44}
            label={{
              value: "prompts",
              angle: -90,
              position: "insideLeft",
              offset: 10,
              style: axisLabelStyle,
            }}
          />
          <Tooltip
            cursor={{ fill: "var(--muted)", opacity: 0.5 }}
            isAnimationActive={false}
            content={(p) => {
              const row = p.payload?.[0]?.payload as Row | undefined;
              if (!p.active || !row) return null;
              return (
                <TooltipFrame title={`τ ${row.bin}`}>
                  <span>
                    <span className="font-medium text-foreground">{row.count}</span> prompt
                    {row.count === 1 ? "" : "s"}
                  </span>
                </TooltipFrame>
              );
            }}
          />
          {tauBin && (
            <ReferenceLine
              x={tauBin.bin}
              stroke="var(--foreground)"
              strokeDasharray="4 3"
              label={{
                value: `checkpoint τ ${formatTau(checkpointTau)}`,
                position: "top",
                fill: "var(--foreground)",
                fontSize: 11,
              }}
            />
          )}
          <Bar dataKey="count" fill="var(--chart-4)" isAnimationActive={false} />
        </BarChart>
      </div>
      <p className="text-xs text-muted-fg tabular-nums">
        {distribution.count} prompt{distribution.count === 1 ? "" : "s"} · p10{" "}
        {formatTau(distribution.p10)} · median {formatTau(distribution.p50)} · p90{" "}
        {formatTau(distribution.p90)} · mean of per-prompt τ {formatTau(distribution.meanOfPrompts)}{" "}
        (unweighted; the checkpoint τ weighs prompts by verify steps)
      </p>
    </div>
  );
}
