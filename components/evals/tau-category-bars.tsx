"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  LabelList,
  ReferenceArea,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import { barLabelY } from "@/components/charts/bar-label";
import { ChartFigure, type ChartTableData } from "@/components/charts/chart-data";
import {
  axisLabelStyle,
  axisTick,
  ChartLegend,
  ChartPlaceholder,
  niceYAxis,
  TooltipFrame,
} from "@/components/charts/sweep-chart-parts";
import { formatCount } from "@/lib/format";
import type { BaselineView, CategoryTauView } from "@/lib/view-models/evals";

import { formatTau } from "./format";
import { baselineCategory, tauScale } from "./reference";
import { BASELINE_COLOR, BaselineLegend, TAU_AXIS_TITLE } from "./tau-chart";

/** One group of bars: a run's (or a checkpoint's) τ per category. */
export interface TauCategorySeries {
  key: string;
  label: string;
  color: string;
  categories: CategoryTauView[];
}

/** How a missing category is shown. */
export const NO_CATEGORY = "no category";

type Row = Record<string, string | number | CategoryTauView | null> & { category: string };

/**
 * "τ by category": one bar per category (per series when several are compared), from zero so bar
 * lengths compare honestly, the value printed on each bar when few (above it, or moved clear of a
 * baseline that would cross it: see barLabelY), and the τ baselines as dashed lines labelled with
 * their value right of the plot, on the axis side away from the bars (named in the legend; far
 * off-scale ones only named there, see tauScale).
 */
export function TauCategoryBars({
  series,
  baselines,
  height = 300,
}: {
  series: readonly TauCategorySeries[];
  baselines: readonly BaselineView[];
  height?: number;
}) {
  const names: string[] = [];
  for (const s of series)
    for (const c of s.categories)
      if (!names.includes(c.category ?? NO_CATEGORY)) names.push(c.category ?? NO_CATEGORY);
  if (names.length === 0)
    return <ChartPlaceholder height={height}>No categories yet</ChartPlaceholder>;
  const rows: Row[] = names.map((name) => {
    const row: Row = { category: name };
    series.forEach((s, i) => {
      const c = s.categories.find((x) => (x.category ?? NO_CATEGORY) === name);
      row[`t${i}`] = c ? c.tau : null;
      row[`c${i}`] = c ?? null;
    });
    return row;
  });
  const scale = tauScale([0, ...series.flatMap((s) => s.categories.map((c) => c.tau))], baselines);
  // A baseline of one category ("coding-only 12.4") is drawn across that category's bars only, never
  // across chat and math; one of a category without bars is named in the legend as not drawn.
  const across = scale.drawn.filter((b) => baselineCategory(b) === null);
  const own = scale.drawn.filter(
    (b) => baselineCategory(b) !== null && names.includes(baselineCategory(b)!),
  );
  const noBars = scale.drawn.filter(
    (b) => baselineCategory(b) !== null && !names.includes(baselineCategory(b)!),
  );
  const linesAt = (category: string) =>
    [...across, ...own.filter((b) => baselineCategory(b) === category)].map((b) => b.value);
  // The line, not its band, is drawn on bars: only the values set the axis.
  const y = niceYAxis([
    ...series.flatMap((s) => s.categories.map((c) => c.tau)),
    ...[...across, ...own].map((b) => b.value),
  ]);
  const labels = series.length * names.length <= 16;

  return (
    <div className="grid gap-2">
      {(series.length > 1 || baselines.length > 0) && (
        <ChartLegend>
          {series.length > 1 &&
            series.map((s) => (
              <span key={s.key} className="inline-flex items-center gap-1.5">
                <span
                  aria-hidden
                  className="inline-block size-2.5 rounded-sm"
                  style={{ background: s.color }}
                />
                {s.label}
              </span>
            ))}
          <BaselineLegend
            drawn={[...across, ...own]}
            offScale={[...scale.offScale, ...noBars]}
            bandClipped={new Set()}
          />
        </ChartLegend>
      )}
      <ChartFigure
        label="Acceptance length τ by category"
        table={categoryTable(series)}
        testId="tau-category-bars"
      >
        <BarChart
          responsive
          data={rows}
          style={{ width: "100%", height }}
          margin={{ top: 18, right: 52, bottom: 4, left: 4 }}
          barCategoryGap="24%"
          barGap={2}
        >
          <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
          <XAxis
            dataKey="category"
            tick={axisTick}
            tickLine={false}
            axisLine={{ stroke: "var(--chart-grid)" }}
            height={30}
            interval={0}
          />
          <YAxis
            domain={y.domain}
            ticks={y.ticks}
            tick={axisTick}
            tickLine={false}
            axisLine={false}
            width={56}
            label={{
              value: TAU_AXIS_TITLE,
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
                <TooltipFrame title={row.category}>
                  {series.map((s, i) => {
                    const c = row[`c${i}`] as CategoryTauView | null;
                    if (!c) return null;
                    return (
                      <div key={s.key} className="grid gap-0.5">
                        <span className="flex items-center gap-1.5">
                          <span
                            aria-hidden
                            className="inline-block size-2 rounded-sm"
                            style={{ background: s.color }}
                          />
                          {series.length > 1 && <span>{s.label}</span>}
                          <span>
                            τ{" "}
                            <span className="font-medium text-foreground">{formatTau(c.tau)}</span>
                          </span>
                        </span>
                        <span className="pl-3.5">
                          {formatCount(c.prompts)} prompts · {formatCount(c.tokensProduced)} tokens
                          / {formatCount(c.verifySteps)} verify steps
                        </span>
                      </div>
                    );
                  })}
                </TooltipFrame>
              );
            }}
          />
          {own.map((b) => (
            <ReferenceArea
              key={`own${b.id}`}
              x1={baselineCategory(b)!}
              x2={baselineCategory(b)!}
              y1={b.value}
              y2={b.value}
              ifOverflow="visible"
              shape={(p: { x?: number; y?: number; width?: number }) => (
                <CategoryBaseline
                  x={p.x ?? 0}
                  y={p.y ?? 0}
                  width={p.width ?? 0}
                  label={`τ ${formatTau(b.value)}`}
                />
              )}
            />
          ))}
          {across.map((b) => (
            <ReferenceLine
              key={b.id}
              y={b.value}
              stroke={BASELINE_COLOR}
              strokeDasharray="6 4"
              strokeWidth={1.5}
              label={{
                value: `τ ${formatTau(b.value)}`,
                position: "right",
                fill: "var(--foreground)",
                fontSize: 11,
              }}
            />
          ))}
          {series.map((s, i) => (
            <Bar
              key={s.key}
              dataKey={`t${i}`}
              name={s.label}
              fill={s.color}
              radius={[3, 3, 0, 0]}
              maxBarSize={56}
              isAnimationActive={false}
            >
              {labels && (
                <LabelList
                  dataKey={`t${i}`}
                  content={(p) => (
                    <BarValueLabel {...p} lines={linesAt(names[Number(p.index)] ?? "")} />
                  )}
                />
              )}
            </Bar>
          ))}
        </BarChart>
      </ChartFigure>
    </div>
  );
}

/** A category's own baseline: a dashed line across that category's band only, its value at the right end. */
function CategoryBaseline({
  x,
  y,
  width,
  label,
}: {
  x: number;
  y: number;
  width: number;
  label: string;
}) {
  return (
    <g className="category-baseline" data-testid="category-baseline">
      <line
        x1={x + 2}
        x2={x + width - 2}
        y1={y}
        y2={y}
        stroke={BASELINE_COLOR}
        strokeDasharray="6 4"
        strokeWidth={1.5}
      />
      {/* In a narrow band (a phone) the value would sit on the bar: the legend above names it. */}
      {width >= 90 && (
        <text
          x={x + width - 2}
          y={y + 13}
          textAnchor="end"
          fontSize={11}
          fill="var(--foreground)"
          stroke="var(--card)"
          strokeWidth={3}
          paintOrder="stroke"
        >
          {label}
        </text>
      )}
    </g>
  );
}

/** A bar's τ printed where no baseline crosses it (recharts LabelList content: the bar's box and value). */
function BarValueLabel({
  x,
  y,
  width,
  height,
  value,
  lines,
}: {
  x?: unknown;
  y?: unknown;
  width?: unknown;
  height?: unknown;
  value?: unknown;
  lines: readonly number[];
}) {
  if (typeof value !== "number") return null;
  // Wider than its bar ("12.83" ran into "11.66" at 390 px, issue 25): left to the tooltip and the data table.
  if (Number(width) < formatTau(value).length * 6.5) return null;
  const top = Number(y);
  const h = Number(height);
  const textY = barLabelY({ top, height: h, value, lines });
  return (
    <text
      x={Number(x) + Number(width) / 2}
      y={textY}
      textAnchor="middle"
      fontSize={11}
      fill="var(--foreground)"
      stroke="var(--card)"
      strokeWidth={3}
      paintOrder="stroke"
      className="bar-value-label"
    >
      {formatTau(value)}
    </text>
  );
}

/** The bars' data table: one row per series and category. */
function categoryTable(series: readonly TauCategorySeries[]): ChartTableData {
  const multi = series.length > 1;
  return {
    columns: [
      ...(multi ? ["Series"] : []),
      "Category",
      "τ",
      "Prompts",
      "Tokens produced",
      "Verify steps",
    ],
    rows: series.flatMap((s) =>
      s.categories.map((c) => [
        ...(multi ? [s.label] : []),
        c.category ?? NO_CATEGORY,
        formatTau(c.tau),
        formatCount(c.prompts),
        formatCount(c.tokensProduced),
        formatCount(c.verifySteps),
      ]),
    ),
  };
}
