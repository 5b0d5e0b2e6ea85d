import type { ReactNode } from "react";

import { formatCompact } from "@/lib/format";
import {
  sweepTickLabel,
  sweepTicks,
  type SweepDatum,
  type SweepScale,
} from "@/lib/metrics/benchmark-sweep";
import { cn } from "@/lib/utils";

/**
 * Pieces shared by the sweep charts: the log₂ x axis (positions are plotted as log2(x) on a linear
 * axis with our own ticks, which keeps "max" and non-power-of-two levels such as C=100 exact), the
 * merge of several series into recharts rows, and the HTML legend and tooltip frame.
 */

/** One line group on a sweep chart. */
export interface SweepSeries {
  key: string;
  label: string;
  /** CSS colour, e.g. `var(--chart-1)`. */
  color: string;
  /** SVG dash pattern for the main line (series that share a colour); solid when absent. */
  dash?: string;
  data: SweepDatum[];
}

/** Categorical colour `i` (cycles through eight theme-aware colours). */
export function seriesColor(i: number): string {
  return `var(--chart-${(i % 8) + 1})`;
}

/** A recharts row: `lx` = log2(x) plus `<field><seriesIndex>` values and `pt<seriesIndex>` points. */
export type SweepRow = Record<string, number | null | SweepDatum> & { x: number; lx: number };

/**
 * Merges series into rows by x. A series with two points at the same x (repeated levels) gets a
 * second row there, so no value is lost; lines connect across rows other series fill.
 */
export function mergeSweepRows(
  series: readonly SweepSeries[],
  fields: (d: SweepDatum) => Record<string, number | null>,
): SweepRow[] {
  const byX = new Map<number, SweepRow[]>();
  series.forEach((s, i) => {
    for (const d of s.data) {
      const rows = byX.get(d.x) ?? [];
      let row = rows.find((r) => !(`pt${i}` in r));
      if (!row) {
        row = { x: d.x, lx: Math.log2(d.x) };
        rows.push(row);
        byX.set(d.x, rows);
      }
      row[`pt${i}`] = d;
      for (const [f, v] of Object.entries(fields(d))) row[`${f}${i}`] = v;
    }
  });
  return [...byX.keys()].sort((a, b) => a - b).flatMap((x) => byX.get(x) ?? []);
}

/** X axis props for a sweep: log₂ positions, domain, ticks and their labels. */
export function sweepXAxis(rows: readonly SweepRow[], scale: SweepScale) {
  const ticks = sweepTicks(
    rows.map((r) => r.x),
    scale,
  );
  const lticks = ticks.map((t) => Math.log2(t));
  const lo = Math.min(...lticks);
  const hi = Math.max(...lticks);
  const domain: [number, number] =
    lticks.length === 0 ? [0, 1] : lo === hi ? [lo - 1, hi + 1] : [lo, hi];
  const tickFormatter = (lx: number) => {
    const i = lticks.findIndex((t) => Math.abs(t - lx) < 1e-9);
    return i >= 0 ? sweepTickLabel(ticks[i] ?? 2 ** lx, scale) : "";
  };
  return { ticks: lticks, domain, tickFormatter };
}

/** Shared axis styling. */
export const axisTick = { fill: "var(--chart-axis)", fontSize: 11 } as const;
/** Axis title styling. */
export const axisLabelStyle = {
  fill: "var(--chart-axis)",
  fontSize: 11,
  textAnchor: "middle",
} as const;

/**
 * Props of a numeric x axis in the charts' look (spread into recharts' `<XAxis>`): our own tick
 * positions and labels, a light axis line, 16 px padding, the title under it.
 */
export function numericXAxisProps(o: {
  dataKey: string;
  domain: [number, number];
  ticks: number[];
  tickFormatter: (v: number) => string;
  title: string;
}) {
  return {
    type: "number" as const,
    dataKey: o.dataKey,
    domain: o.domain,
    ticks: o.ticks,
    tickFormatter: o.tickFormatter,
    tick: axisTick,
    tickLine: false,
    axisLine: { stroke: "var(--chart-grid)" },
    padding: { left: 16, right: 16 },
    height: 40,
    label: { value: o.title, position: "insideBottom" as const, offset: 0, style: axisLabelStyle },
    allowDecimals: true,
  };
}

/**
 * Props of the dashed p99 line of series `i` (spread into recharts' `<Line>`), drawn next to its
 * solid median line: data key `p99<i>`, legend name "<label> · p99", hollow dots.
 */
export function p99LineProps(series: { label: string; color: string }, i: number) {
  return {
    type: "linear" as const,
    dataKey: `p99${i}`,
    name: `${series.label ? `${series.label} · ` : ""}p99`,
    stroke: series.color,
    strokeWidth: 1.5,
    strokeDasharray: "5 4",
    strokeOpacity: 0.85,
    dot: { r: 2, fill: "var(--card)", stroke: series.color, strokeWidth: 1.5 },
    activeDot: { r: 4 },
    connectNulls: true,
    isAnimationActive: false,
  };
}

/**
 * Props of a value y axis (spread into recharts' `<YAxis>`): nice ticks from {@link niceYAxis},
 * compact tick labels, no axis line, the title rotated along it (left, or right with `right`).
 */
export function valueYAxisProps(o: {
  domain: [number, number];
  ticks: number[];
  title: string;
  right?: boolean;
  tickFormatter?: (v: number) => string;
}) {
  return {
    domain: o.domain,
    ticks: o.ticks,
    tickFormatter: o.tickFormatter ?? formatCompact,
    tick: axisTick,
    tickLine: false,
    axisLine: false,
    width: 56,
    ...(o.right ? { orientation: "right" as const } : {}),
    label: {
      value: o.title,
      angle: o.right ? 90 : -90,
      position: o.right ? ("insideRight" as const) : ("insideLeft" as const),
      offset: 4,
      style: axisLabelStyle,
    },
  };
}

/** Legend entry: a line swatch (solid or dashed) and its text. */
export function LegendItem({
  color,
  dashed,
  children,
}: {
  color: string;
  dashed?: boolean | string;
  children: ReactNode;
}) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <svg width="18" height="8" aria-hidden className="shrink-0">
        <line
          x1="1"
          y1="4"
          x2="17"
          y2="4"
          stroke={color}
          strokeWidth="2"
          strokeDasharray={typeof dashed === "string" ? dashed : dashed ? "4 3" : undefined}
        />
      </svg>
      <span>{children}</span>
    </span>
  );
}

/** HTML legend row above a chart. */
export function ChartLegend({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={cn(
        "flex min-h-5 flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted-fg",
        className,
      )}
    >
      {children}
    </div>
  );
}

/** Tooltip box. */
export function TooltipFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="min-w-44 rounded-md border border-border bg-card px-3 py-2 text-xs shadow-lg">
      <div className="mb-1 font-medium text-foreground">{title}</div>
      <div className="grid gap-0.5 text-muted-fg tabular-nums">{children}</div>
    </div>
  );
}

/** Fixed-height placeholder with the same footprint as a chart (so nothing jumps when data arrives). */
export function ChartPlaceholder({ height, children }: { height: number; children: ReactNode }) {
  return (
    <div
      style={{ height }}
      className="flex items-center justify-center rounded-md border border-dashed border-border text-sm text-muted-fg"
    >
      {children}
    </div>
  );
}

/**
 * A zero-based y axis with round ticks (0, 250, 500, 750, 1000 rather than recharts' 0, 7, 14, 21, 28):
 * the step is 1, 2, 2.5 or 5 × 10^k giving about four intervals above the largest value.
 */
export function niceYAxis(
  values: ReadonlyArray<number | null | undefined>,
  intervals = 4,
): { domain: [number, number]; ticks: number[] } {
  let max = 0;
  for (const v of values) if (typeof v === "number" && Number.isFinite(v) && v > max) max = v;
  if (max === 0) return { domain: [0, 1], ticks: [0, 0.25, 0.5, 0.75, 1] };
  const raw = max / intervals;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const top = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= top + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { domain: [0, ticks[ticks.length - 1] ?? top], ticks };
}

/** All numeric values of the rows' fields starting with `prefix` (for {@link niceYAxis}). */
export function rowValues(rows: readonly SweepRow[], prefix: string): number[] {
  const out: number[] = [];
  for (const r of rows)
    for (const [k, v] of Object.entries(r))
      if (k.startsWith(prefix) && typeof v === "number") out.push(v);
  return out;
}

/**
 * A log₁₀ y axis covering the positive values: from the power of ten at or below the smallest to
 * the one at or above the largest, a tick at each power (and at 2× and 5× when it spans at most two
 * decades), so 93 ms at C=1 and 9.9 s at C=128 are both readable. Null without a positive value
 * (a log axis cannot show 0).
 */
export function logYAxis(
  values: ReadonlyArray<number | null | undefined>,
): { domain: [number, number]; ticks: number[] } | null {
  let min = Infinity;
  let max = 0;
  for (const v of values) {
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  if (max === 0) return null;
  const lo = Math.floor(Math.log10(min) + 1e-9);
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(max) - 1e-9));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) {
    const p = 10 ** e;
    ticks.push(Number(p.toPrecision(12)));
    if (hi - lo <= 2 && e < hi)
      ticks.push(Number((2 * p).toPrecision(12)), Number((5 * p).toPrecision(12)));
  }
  return { domain: [10 ** lo, 10 ** hi], ticks };
}
