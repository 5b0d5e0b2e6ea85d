"use client";

import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import { ChartFigure, type ChartTableData } from "@/components/charts/chart-data";
import { formatAxisValue, metricYAxis } from "@/components/charts/metric-chart";
import {
  axisLabelStyle,
  axisTick,
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  TooltipFrame,
} from "@/components/charts/sweep-chart-parts";
import { formatCompact, formatCount } from "@/lib/format";
import type { BaselineView, CheckpointRefView, TauCountsView } from "@/lib/view-models/evals";

import { baselineLabel, checkpointName, formatTau } from "./format";
import { baselineCategory, baselinesForScope, tauScale } from "./reference";

/** A checkpoint on a τ line. */
export type TauChartPoint = CheckpointRefView & TauCountsView;

/** One line of {@link TauChart}: a run (or a draft setting), its colour and checkpoints in order. */
export interface TauChartSeries {
  key: string;
  label: string;
  /** CSS colour, e.g. `var(--chart-1)`. */
  color: string;
  points: TauChartPoint[];
}

/** About `intervals` round ticks (1, 2, 2.5 or 5 × 10^k apart) covering [lo, hi], ends included. */
function roundTicks(lo: number, hi: number, intervals = 8): number[] {
  const raw = (hi - lo) / intervals;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let t = Math.floor(lo / step) * step; t < hi + step; t += step)
    ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** Colour of baseline lines and their tolerance bands. */
export const BASELINE_COLOR = "var(--chart-axis)";

/** Title of every τ axis, with the unit. */
export const TAU_AXIS_TITLE = "acceptance length τ (tokens / verify step)";

/** Legend entries of baselines: drawn ones as dashed lines, off-scale ones named and marked as not drawn. */
export function BaselineLegend({
  drawn,
  offScale,
  bandClipped,
}: {
  drawn: readonly BaselineView[];
  offScale: readonly BaselineView[];
  bandClipped: ReadonlySet<number>;
}) {
  return (
    <>
      {drawn.map((b) => (
        <LegendItem key={`b${b.id}`} color={BASELINE_COLOR} dashed>
          {baselineLabel(b)}
          {bandClipped.has(b.id) && <span className="text-muted-fg"> (band beyond the axis)</span>}
        </LegendItem>
      ))}
      {offScale.map((b) => (
        <span
          key={`off${b.id}`}
          className="inline-flex items-center gap-1.5 text-muted-fg"
          data-testid="baseline-off-scale"
          title="far outside the plotted τ; not drawn so the lines stay readable"
        >
          <span aria-hidden>⤒</span>
          {baselineLabel(b)} — off-scale, not drawn
        </span>
      ))}
    </>
  );
}

type Row = Record<string, number | TauChartPoint | null> & { x: number };

/**
 * X positions: the checkpoint step when any point has one (points without a step cannot be placed
 * on that axis and are counted in `skipped`), else the checkpoint's position in its line (1, 2, 3…).
 */
function placeRows(series: readonly TauChartSeries[]): {
  rows: Row[];
  byStep: boolean;
  skipped: number;
} {
  const byStep = series.some((s) => s.points.some((p) => p.step !== null));
  const rows = new Map<number, Row>();
  let skipped = 0;
  series.forEach((s, i) => {
    s.points.forEach((p, j) => {
      if (byStep && p.step === null) {
        skipped++;
        return;
      }
      const x = byStep ? Number(p.step) : j + 1;
      const row = rows.get(x) ?? { x };
      row[`t${i}`] = p.tau;
      row[`p${i}`] = p;
      rows.set(x, row);
    });
  });
  return { rows: [...rows.values()].sort((a, b) => a.x - b.x), byStep, skipped };
}

/**
 * "Acceptance length τ by checkpoint": one line per series (x = checkpoint step; when no
 * checkpoint has a step, their order), every checkpoint a dot (class `dot-tau`), each baseline a
 * labelled dashed horizontal line with its ± tolerance as a band. Checkpoints without a step next
 * to stepped ones are left out and counted under the chart. The tooltip gives τ with the raw counts
 * it is computed from.
 */
export function TauChart({
  series,
  baselines: all,
  height = 300,
  scope = null,
}: {
  series: readonly TauChartSeries[];
  baselines: readonly BaselineView[];
  height?: number;
  scope?: string | null;
}) {
  const { rows, byStep, skipped } = placeRows(series);
  // The lines are τ over every prompt (in `scope`): a coding-only reference is never drawn against them (issue 25).
  const { matching: baselines, otherCategory } = baselinesForScope(all, scope);
  if (rows.length === 0)
    return <ChartPlaceholder height={height}>No checkpoint scored yet</ChartPlaceholder>;

  const pointCount = series.reduce((n, s) => n + s.points.length, 0) - skipped;
  const scale = tauScale(
    series.flatMap((s) => s.points.filter((p) => !byStep || p.step !== null).map((p) => p.tau)),
    baselines,
  );
  const drawn = scale.drawn;
  const y = metricYAxis(scale.axisValues);
  const yStep = (y.ticks[1] ?? 1) - (y.ticks[0] ?? 0);
  const xs = rows.map((r) => r.x);
  const xMin = xs[0]!;
  const xMax = xs[xs.length - 1]!;
  // With few checkpoints, tick each one; otherwise round steps (0, 4k, 8k…) over a round domain.
  const round = byStep && xs.length > 10 ? roundTicks(xMin, xMax) : null;
  const pad = xMin === xMax ? Math.max(1, Math.abs(xMin) * 0.1) : (xMax - xMin) * 0.04;
  const domain: [number, number] = round
    ? [round[0]!, round[round.length - 1]!]
    : [xMin - pad, xMax + pad];
  const ticks = round ?? xs;
  const single = series.length === 1 ? series[0]! : null;
  const tickLabel = (x: number): string => {
    if (byStep) return formatCompact(x);
    if (single) {
      const p = single.points[x - 1];
      const name = p ? checkpointName(p) : `#${x}`;
      return name.length > 20 ? `${name.slice(0, 19)}…` : name;
    }
    return `#${x}`;
  };

  return (
    <div className="grid gap-2">
      {(series.length > 1 || all.length > 0) && (
        <ChartLegend>
          {series.length > 1 &&
            series
              .filter((s) => s.points.some((p) => !byStep || p.step !== null))
              .map((s) => (
                <LegendItem key={s.key} color={s.color}>
                  {s.label}
                </LegendItem>
              ))}
          <BaselineLegend drawn={drawn} offScale={scale.offScale} bandClipped={scale.bandClipped} />
          {otherCategory.map((b) => (
            <span
              key={`cat${b.id}`}
              className="text-muted-fg"
              data-testid="baseline-other-category"
              title="This reference holds for one category; the lines are τ over all prompts"
            >
              {baselineLabel(b)}: {baselineCategory(b)} only, compared in τ by category
            </span>
          ))}
        </ChartLegend>
      )}
      <ChartFigure
        label="Acceptance length τ by checkpoint"
        table={tauTable(series)}
        testId="tau-chart"
        points={pointCount}
      >
        <LineChart
          responsive
          data={rows}
          style={{ width: "100%", height }}
          margin={{ top: 14, right: 18, bottom: 4, left: 4 }}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          {drawn.map((b) =>
            b.tolerance ? (
              <ReferenceArea
                key={`band${b.id}`}
                y1={b.value - b.tolerance}
                y2={b.value + b.tolerance}
                fill={BASELINE_COLOR}
                fillOpacity={0.12}
                stroke="none"
                ifOverflow="hidden"
              />
            ) : null,
          )}
          <XAxis
            type="number"
            dataKey="x"
            domain={domain}
            ticks={ticks}
            tickFormatter={tickLabel}
            tick={axisTick}
            tickLine={false}
            axisLine={{ stroke: "var(--chart-grid)" }}
            height={36}
            allowDecimals={false}
            label={{
              value: byStep ? "checkpoint step" : "checkpoint (in order)",
              position: "insideBottom",
              offset: 0,
              style: axisLabelStyle,
            }}
          />
          <YAxis
            domain={y.domain}
            ticks={y.ticks}
            tickFormatter={(v: number) => formatAxisValue(v, yStep)}
            tick={axisTick}
            tickLine={false}
            axisLine={false}
            width={56}
            allowDataOverflow
            label={{
              value: TAU_AXIS_TITLE,
              angle: -90,
              position: "insideLeft",
              offset: 10,
              style: axisLabelStyle,
            }}
          />
          {drawn.map((b, i) => (
            <ReferenceLine
              key={`line${b.id}`}
              y={b.value}
              stroke={BASELINE_COLOR}
              strokeDasharray="6 4"
              strokeWidth={1.5}
              ifOverflow="hidden"
              label={{
                value: baselineLabel({ ...b, name: clipName(b.name) }),
                position: i % 2 === 0 ? "insideTopLeft" : "insideBottomLeft",
                fill: "var(--foreground)",
                fontSize: 11,
                className: "baseline-label",
              }}
            />
          ))}
          <Tooltip
            cursor={{ stroke: "var(--chart-axis)", strokeDasharray: "3 3" }}
            isAnimationActive={false}
            content={(p) => {
              const row = p.payload?.[0]?.payload as Row | undefined;
              if (!p.active || !row) return null;
              const entries = series
                .map((s, i) => ({ s, point: row[`p${i}`] as TauChartPoint | undefined }))
                .filter((e) => e.point);
              const title = byStep
                ? `step ${formatCount(row.x)}`
                : single && entries[0]?.point
                  ? checkpointName(entries[0].point)
                  : `checkpoint #${row.x}`;
              return (
                <TooltipFrame title={title}>
                  {entries.map(({ s, point }) => (
                    <div key={s.key} className="grid gap-0.5">
                      <span className="flex items-center gap-1.5">
                        <span
                          aria-hidden
                          className="inline-block size-2 rounded-full"
                          style={{ background: s.color }}
                        />
                        {series.length > 1 && <span>{s.label}</span>}
                        <span>
                          τ{" "}
                          <span className="font-medium text-foreground">
                            {formatTau(point!.tau)}
                          </span>
                        </span>
                      </span>
                      <span className="pl-3.5">
                        {checkpointName(point!)} · {formatCount(point!.tokensProduced)} tokens /{" "}
                        {formatCount(point!.verifySteps)} verify steps
                      </span>
                    </div>
                  ))}
                </TooltipFrame>
              );
            }}
          />
          {series.map((s, i) => (
            <Line
              key={s.key}
              type="linear"
              dataKey={`t${i}`}
              name={s.label}
              stroke={s.color}
              strokeWidth={1.75}
              dot={{ r: 3.5, fill: s.color, strokeWidth: 0, className: "dot-tau" }}
              activeDot={{ r: 5 }}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ChartFigure>
      {skipped > 0 && (
        <p className="text-xs text-muted-fg">
          {skipped} checkpoint{skipped === 1 ? "" : "s"} without a step{" "}
          {skipped === 1 ? "is" : "are"} not drawn on the step axis; see the table.
        </p>
      )}
    </div>
  );
}

/** The τ chart's data table: one row per checkpoint (latest first), a Series column when several lines are drawn. */
function tauTable(series: readonly TauChartSeries[]): ChartTableData {
  const multi = series.length > 1;
  const columns = [
    ...(multi ? ["Series"] : []),
    "Checkpoint",
    "τ",
    "Tokens produced",
    "Verify steps",
  ];
  const rows = series.flatMap((s) =>
    [...s.points]
      .reverse()
      .map((p) => [
        ...(multi ? [s.label] : []),
        checkpointName(p),
        formatTau(p.tau),
        formatCount(p.tokensProduced),
        formatCount(p.verifySteps),
      ]),
  );
  return { columns, rows };
}

/** Characters of a baseline's name drawn on its line inside the plot (an SVG label cannot wrap; the legend above carries the full name). */
const PLOT_NAME_CHARS = 22;

function clipName(name: string): string {
  return name.length <= PLOT_NAME_CHARS ? name : `${name.slice(0, PLOT_NAME_CHARS - 1)}…`;
}
