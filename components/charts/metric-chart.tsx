"use client";

import { memo, useMemo, useState } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  Tooltip,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
} from "recharts";

import { formatCompact, formatCount, formatNonFinite, formatNumber } from "@/lib/format";
import type { PlacedAnnotation } from "@/lib/metrics/annotations";
import { emaSmooth } from "@/lib/metrics/smoothing";
import type { MetricSeriesView } from "@/lib/view-models/metrics";

import { annotationLines } from "./annotation-lines";
import { ChartFigure } from "./chart-data";
import {
  axisLabelStyle,
  axisTick,
  ChartPlaceholder,
  logYAxis,
  TooltipFrame,
} from "./sweep-chart-parts";

/** A chart row: x = step (as a number, for plotting), the finite value, or a marker for a non-finite one. */
interface Row {
  x: number;
  /** Exact step for labels (a decimal string beyond 2^53). */
  step: number | string;
  v: number | null;
  /** Marker y (top edge for NaN/+∞, bottom edge for −∞); null for finite rows. */
  nf: number | null;
  raw: number;
  /** EMA-smoothed value (only with smoothing > 0; null where nothing is drawn). */
  s?: number | null;
}

/** Round step for about `intervals` intervals over `span`: 1, 2, 2.5 or 5 × 10^k. */
function niceStep(span: number, intervals: number): number {
  const raw = span / intervals;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
}

/** Ticks at multiples of a round step inside [lo, hi] (about `intervals` of them). */
export function roundTicks(lo: number, hi: number, intervals = 4): number[] {
  if (!(hi > lo)) return [lo];
  const step = niceStep(hi - lo, intervals);
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step)
    ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/**
 * Axis label for a value on an axis with the given tick step: compact for large numbers ("1.5k"),
 * enough decimals for the step ("0.25"), scientific for tiny values ("3e-4", "2.5e-5").
 */
export function formatAxisValue(v: number, step: number): string {
  if (v === 0) return "0";
  const a = Math.abs(step);
  if (a >= 1 || Math.abs(v) >= 1000) return formatCompact(v);
  if (a >= 1e-3) {
    // As many decimals as the tick step has: 0.25 → 2, 0.1 → 1, 0.005 → 3.
    const stepText = String(Number(a.toPrecision(6)));
    const decimals = stepText.split(".")[1]?.length ?? 0;
    return v.toFixed(decimals).replace(/^-/, "−");
  }
  const [m, e] = v.toExponential(2).split("e");
  return `${Number(m)}e${Number(e)}`.replace(/^-/, "−");
}

/** A y domain with round ticks around the finite values (not forced to include 0, unlike sweep charts). */
export function metricYAxis(values: readonly number[]): {
  domain: [number, number];
  ticks: number[];
} {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return { domain: [0, 1], ticks: [0, 0.5, 1] };
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  // Values that start near zero read best against a zero baseline (loss, accuracy, lr).
  if (lo > 0 && lo < (hi - lo) * 0.5) lo = 0;
  const step = niceStep(hi - lo, 4);
  const start = Math.floor(lo / step + 1e-9) * step;
  const end = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let t = start; t <= end + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { domain: [ticks[0] ?? start, ticks[ticks.length - 1] ?? end], ticks };
}

/** Step as text: "1,200", or the exact decimal string of a 64-bit step. */
export function formatStep(step: number | string): string {
  return typeof step === "number" ? formatCount(step) : step;
}

/** "NaN at step 1,200", "+∞ at step 40", "−∞ at step 7". */
export function nonFiniteLabel(value: number, step: number | string): string {
  const name = Number.isNaN(value) ? "NaN" : value > 0 ? "+∞" : "−∞";
  return `${name} at step ${formatStep(step)}`;
}

/**
 * A red triangle on the plot's edge at each NaN/±∞ row (pointing out of the plot: NaN and +∞ at
 * the top, −∞ at the bottom), "NaN at step 1,200" in its title. Placed through the chart's axis
 * scales, so a chart draws one element per non-finite point, not a dot slot per row.
 */
function NonFiniteMarkers({ rows }: { rows: readonly Row[] }) {
  const x = useXAxisScale();
  const y = useYAxisScale();
  if (!x || !y) return null;
  return (
    <g>
      {rows.map((r) => {
        const cx = x(r.x);
        const cy = y(r.nf);
        if (cx === undefined || cy === undefined) return null;
        const down = r.raw === Number.NEGATIVE_INFINITY;
        const d = down
          ? `M${cx - 5},${cy - 8}L${cx + 5},${cy - 8}L${cx},${cy}Z`
          : `M${cx - 5},${cy + 8}L${cx + 5},${cy + 8}L${cx},${cy}Z`;
        return (
          <path
            key={String(r.step)}
            d={d}
            fill="var(--status-failed)"
            stroke="var(--card)"
            strokeWidth={1}
            className="nonfinite-marker"
            data-step={String(r.step)}
          >
            <title>{nonFiniteLabel(r.raw, r.step)}</title>
          </path>
        );
      })}
    </g>
  );
}

/**
 * The newest step the page holds for a series, exactly ("2401", or the decimal string of a 64-bit
 * step): its last point, since points come by ascending step and a downsampled series keeps the
 * last point of every column. What `data-last-step` carries (tests and the live-browser bench
 * time a pushed step until the chart holds it); "" for an empty series.
 */
export function newestStep(series: Pick<MetricSeriesView, "points">): string {
  const last = series.points[series.points.length - 1];
  return last === undefined ? "" : String(last.step);
}

/** Steps a drag-select covers (`fromStep` ≤ `toStep`, both inclusive). */
export interface ZoomRange {
  fromStep: number;
  toStep: number;
}

/** The step of the row under the pointer in a recharts mouse event, or null off the data. */
function stepAt(
  rows: readonly Row[],
  state: { activeTooltipIndex?: unknown } | null | undefined,
): number | null {
  const i = Number(state?.activeTooltipIndex);
  const row = Number.isInteger(i) ? rows[i] : undefined;
  return row && Number.isFinite(row.x) ? row.x : null;
}

/**
 * The rows one metric chart draws and its axes: x = step, the finite value (null where a log axis
 * leaves it off), a marker y for each NaN/±∞ (the plot's top or bottom edge) and, with smoothing
 * above 0, the EMA line. Pure; the chart memoises it on its inputs.
 */
function chartRows(series: MetricSeriesView, logY: boolean, smoothing: number) {
  const finite = series.points.filter((p) => Number.isFinite(p.value)).map((p) => p.value);
  const logAxis = logY ? logYAxis(finite) : null;
  const y = logAxis ?? metricYAxis(finite);
  const [lo, hi] = y.domain;
  const rows: Row[] = series.points.map((p) => {
    const x = typeof p.step === "number" ? p.step : Number(p.step);
    const ok = Number.isFinite(p.value);
    const drawn = ok && !(logAxis && p.value <= 0);
    return {
      x,
      step: p.step,
      v: drawn ? p.value : null,
      nf: ok ? null : p.value === Number.NEGATIVE_INFINITY ? lo : hi,
      raw: p.value,
    };
  });
  if (smoothing > 0) {
    const ema = emaSmooth(
      rows.map((r) => r.v ?? Number.NaN),
      smoothing,
    );
    rows.forEach((r, i) => {
      const v = ema[i] ?? null;
      r.s = v !== null && !(logAxis && v <= 0) ? v : null;
    });
  }
  const nonFinite = rows.filter((r) => r.nf !== null);
  let xMin = Infinity;
  let xMax = -Infinity;
  for (const r of rows)
    if (Number.isFinite(r.x)) {
      xMin = Math.min(xMin, r.x);
      xMax = Math.max(xMax, r.x);
    }
  return { rows, y, logAxis, xMin, xMax, xTicks: roundTicks(xMin, xMax, 4), nonFinite };
}

/**
 * One metric key by step ("loss by step"): a line through the finite values and a red triangle on
 * the plot's edge at every NaN/±Infinity step (with "NaN at step 1200" in its tooltip), so a
 * diverged run never shows as a gap or a zero. Named for screen readers, with every plotted point
 * in a "Data table" under it. With `onZoom`, dragging across the plot selects a step range (shaded
 * while dragging) and hands it over on release; the caller re-reads that range at full resolution.
 */
export const MetricChart = memo(function MetricChart({
  series,
  height = 220,
  color = "var(--chart-1)",
  onZoom,
  logY = false,
  annotations,
  smoothing = 0,
  syncId,
}: {
  series: MetricSeriesView;
  height?: number;
  color?: string;
  onZoom?: (range: ZoomRange) => void;
  /** Log₁₀ y axis (values ≤ 0 are left off the plot; the data table keeps them). Falls back to linear without a positive value. */
  logY?: boolean;
  /** Checkpoints, events and plan decisions placed on the step axis, drawn as vertical lines. */
  annotations?: readonly PlacedAnnotation[];
  /** EMA weight in [0, 0.99]: above 0 the smoothed line is drawn over the raw one, which turns faint. */
  smoothing?: number;
  /** Charts with the same id share one crosshair and tooltip, matched by step. */
  syncId?: string;
}) {
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  // Rows keep their identity while dragging (recharts takes new rows as new chart data).
  const { rows, y, logAxis, xMin, xMax, xTicks, nonFinite } = useMemo(
    () => chartRows(series, logY, smoothing),
    [series, logY, smoothing],
  );
  const smoothed = smoothing > 0;
  const yStep = (y.ticks[1] ?? 1) - (y.ticks[0] ?? 0);

  if (rows.length === 0) return <ChartPlaceholder height={height}>No points yet</ChartPlaceholder>;
  // Built only when the reader opens it: formatting 1,000 cells per redraw of a live chart is not free.
  const table = {
    rows: rows.length,
    build: () => ({
      columns: ["Step", series.key],
      rows: rows.map((r) => [formatStep(r.step), formatNonFinite(r.raw) ?? formatNumber(r.raw)]),
    }),
  };
  const finishDrag = () => {
    if (drag && onZoom && drag.from !== drag.to)
      onZoom({ fromStep: Math.min(drag.from, drag.to), toStep: Math.max(drag.from, drag.to) });
    setDrag(null);
  };
  return (
    <ChartFigure
      label={`${series.key} by step${onZoom ? " (drag across the chart to zoom)" : ""}`}
      table={table}
      testId="metric-chart"
      dataKey={series.key}
      points={rows.length}
      lastStep={newestStep(series)}
    >
      <LineChart
        responsive
        data={rows}
        syncId={syncId}
        syncMethod="value"
        style={{
          width: "100%",
          height,
          userSelect: onZoom ? "none" : undefined,
          cursor: onZoom ? "crosshair" : undefined,
        }}
        margin={{ top: 10, right: 14, bottom: 4, left: 4 }}
        onMouseDown={
          onZoom
            ? (state) => {
                const x = stepAt(rows, state);
                if (x !== null) setDrag({ from: x, to: x });
              }
            : undefined
        }
        onMouseMove={
          onZoom
            ? (state) => {
                const x = stepAt(rows, state);
                if (drag && x !== null && x !== drag.to) setDrag({ ...drag, to: x });
              }
            : undefined
        }
        onMouseUp={onZoom ? finishDrag : undefined}
        onMouseLeave={onZoom ? () => setDrag(null) : undefined}
      >
        <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
        <XAxis
          type="number"
          dataKey="x"
          domain={xMin === xMax ? [xMin - 1, xMax + 1] : [xMin, xMax]}
          ticks={xMin === xMax ? [xMin] : xTicks}
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
          // A NaN row has no value on the line: its tooltip still says "NaN at step N".
          filterNull={false}
          content={(p) => {
            const row = p.payload?.[0]?.payload as Row | undefined;
            if (!p.active || !row) return null;
            return (
              <TooltipFrame title={`step ${formatStep(row.step)}`}>
                {row.nf !== null ? (
                  <span className="font-medium text-failed">
                    {nonFiniteLabel(row.raw, row.step)}
                  </span>
                ) : (
                  <span>
                    {series.key}{" "}
                    <span className="font-medium text-foreground">
                      {formatNonFinite(row.raw) ?? formatNumber(row.raw)}
                    </span>
                  </span>
                )}
              </TooltipFrame>
            );
          }}
        />
        {smoothed && (
          <Line
            type="linear"
            dataKey="v"
            name={`${series.key} (raw)`}
            className="metric-raw"
            stroke={color}
            strokeOpacity={0.25}
            strokeWidth={1}
            dot={false}
            activeDot={false}
            connectNulls
            isAnimationActive={false}
          />
        )}
        <Line
          type="linear"
          dataKey={smoothed ? "s" : "v"}
          name={series.key}
          className={smoothed ? "metric-smoothed" : undefined}
          stroke={color}
          strokeWidth={1.75}
          dot={!smoothed && rows.length <= 60 ? { r: 2.5, fill: color, strokeWidth: 0 } : false}
          activeDot={{ r: 3.5 }}
          connectNulls
          isAnimationActive={false}
        />
        {nonFinite.length > 0 && <NonFiniteMarkers rows={nonFinite} />}
        {annotations && annotationLines(annotations, xMin, xMax)}
        {drag && drag.from !== drag.to && (
          <ReferenceArea
            x1={Math.min(drag.from, drag.to)}
            x2={Math.max(drag.from, drag.to)}
            fill="var(--chart-axis)"
            fillOpacity={0.18}
            stroke="none"
            ifOverflow="hidden"
          />
        )}
      </LineChart>
    </ChartFigure>
  );
});
