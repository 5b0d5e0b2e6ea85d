"use client";

import { memo, useState } from "react";

import { useInView } from "@/components/charts/lazy-mount";
import { LogYToggle } from "@/components/charts/log-y-toggle";
import { MetricChart, nonFiniteLabel, type ZoomRange } from "@/components/charts/metric-chart";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount } from "@/lib/format";
import { metricTitle } from "@/lib/metric-labels";
import type { PlacedAnnotation } from "@/lib/metrics/annotations";
import type { MetricSeriesView } from "@/lib/view-models/metrics";

/** Chart height (px); the placeholder of a chart not drawn yet takes the same room. */
const CHART_HEIGHT = 220;
/** The "Data table" line under a drawn chart (px), kept by the placeholder too. */
const TABLE_LINE = 24;

/** "1,004 of 1,000,000 points" (downsampled), "300 points"; zoomed: "212 points in the range". */
function pointsNote(s: MetricSeriesView, zoomed: boolean): string {
  if (zoomed) return `${formatCount(s.shown)} point${s.shown === 1 ? "" : "s"} in the range`;
  return s.shown < s.total
    ? `${formatCount(s.shown)} of ${formatCount(s.total)} points`
    : `${formatCount(s.total)} point${s.total === 1 ? "" : "s"}`;
}

/** A run page's metric charts share one crosshair: hovering step 2,160 on loss shows it on lr too. */
const METRIC_SYNC_ID = "run-metrics";

/** Props of {@link MetricCard}; every callback must keep its identity across renders (the card is memoised). */
export interface MetricCardProps {
  series: MetricSeriesView;
  color: string;
  zoomed: boolean;
  logY: boolean;
  /** EMA weight of the chart's line (0: raw only). */
  smoothing: number;
  onLogY: (key: string, on: boolean) => void;
  onZoom: (range: ZoomRange) => void;
  annotations: readonly PlacedAnnotation[] | undefined;
  /** Draw the chart even out of view (the page's background budget reached this card). */
  mountAnyway: boolean;
}

/**
 * One metric's card: title, points note, "Log y" and the chart. The chart is drawn once the card
 * comes near the viewport (or the page's background budget reaches it), so a run with 200 keys
 * draws the charts in view first; until then a placeholder of the same size holds its place. A
 * drawn chart scrolled out of view keeps the series it last drew while live values arrive and
 * catches up when it comes back (one drawn just ahead of the viewport keeps the series it was first
 * drawn with until it is scrolled in), so a live page redraws only the charts a person can see.
 */
export const MetricCard = memo(function MetricCard({
  series,
  color,
  zoomed,
  logY,
  smoothing,
  onLogY,
  onZoom,
  annotations,
  mountAnyway,
}: MetricCardProps) {
  const { ref, inView, visible } = useInView();
  const [seen, setSeen] = useState(false);
  const [held, setHeld] = useState(series);
  // Derived state (React's "storing information from previous renders"): set during render.
  // A chart drawn out of sight (just ahead of the viewport, or by the background budget) draws
  // the series of when it was first drawn or last seen: live redraws go to the charts in view.
  const mountNow = inView || mountAnyway;
  if (mountNow && !seen) {
    setSeen(true);
    if (held !== series) setHeld(series);
  }
  if (visible && held !== series) setHeld(series);
  const drawn = visible ? series : held;
  const mounted = seen || mountNow;
  const bad = drawn.points.filter((p) => !Number.isFinite(p.value));
  return (
    // The wrapper is what the observer watches (Card takes no ref); it is the grid item.
    <div ref={ref} className="grid min-w-0" data-metric-card={series.key}>
      <Card className="min-w-0">
        <CardHeader>
          <CardTitle className="truncate font-mono text-[13px]" title={series.key}>
            {/* A key with a unit suffix reads by its label and unit ("prompts/s"), the key beside it. */}
            {metricTitle(series.key) !== series.key ? (
              <>
                <span className="font-sans">{metricTitle(series.key)}</span>{" "}
                <span className="font-normal text-muted-fg">{series.key}</span>
              </>
            ) : (
              series.key
            )}
            <span className="font-sans font-normal text-muted-fg"> by step</span>
          </CardTitle>
          <CardDescription
            className="ml-auto shrink-0 tabular-nums"
            data-testid="metric-points"
            title={
              series.shown < series.total
                ? "Each step column keeps its first, lowest, highest and last value, so spikes stay visible; every NaN/±∞ is kept"
                : undefined
            }
          >
            {pointsNote(series, zoomed)}
          </CardDescription>
          <LogYToggle on={logY} onChange={(on) => onLogY(series.key, on)} testId="metric-log-y" />
        </CardHeader>
        <CardContent className="grid gap-2">
          {mounted ? (
            <MetricChart
              series={drawn}
              color={color}
              onZoom={onZoom}
              logY={logY}
              smoothing={smoothing}
              annotations={annotations}
              height={CHART_HEIGHT}
              syncId={METRIC_SYNC_ID}
            />
          ) : (
            <div
              style={{ height: CHART_HEIGHT + TABLE_LINE }}
              className="rounded-md bg-muted/40"
              data-chart-pending={series.key}
              aria-hidden
            />
          )}
          {bad.length > 0 && (
            <p
              className="text-xs font-medium text-failed tabular-nums"
              data-testid="nonfinite-note"
            >
              ▲ {bad.length} non-finite value{bad.length === 1 ? "" : "s"}:{" "}
              {bad
                .slice(0, 4)
                .map((p) => nonFiniteLabel(p.value, p.step))
                .join(", ")}
              {bad.length > 4 ? ", …" : ""}
            </p>
          )}
        </CardContent>
      </Card>
    </div>
  );
});
