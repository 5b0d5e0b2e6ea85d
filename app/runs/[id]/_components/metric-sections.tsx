"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ZoomOut } from "lucide-react";
import { useCallback, useState } from "react";

import { useBackgroundBudget } from "@/components/charts/lazy-mount";
import { type ZoomRange } from "@/components/charts/metric-chart";
import { SmoothingSlider } from "@/components/charts/smoothing-slider";
import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { useChartViewUrl, useUrlSmoothing } from "@/components/charts/use-chart-view-url";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRunMetricsRange } from "@/lib/api/fetchers/runs";
import { metricsRangeQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import type { PlacedAnnotation } from "@/lib/metrics/annotations";
import { cn } from "@/lib/utils";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";

import { MetricCard } from "./metric-card";
import { AnnotationList, useRunAnnotations, type AnnotationSource } from "./run-annotations";

/** No annotations, one identity (the cards are memoised on their props). */
const NO_ANNOTATIONS: readonly PlacedAnnotation[] = [];

/** Losses first, then the other keys alphabetically. */
function orderSeries(series: readonly MetricSeriesView[]): MetricSeriesView[] {
  const loss = (k: string) => (/loss/i.test(k) ? 0 : 1);
  return [...series].sort((a, b) => loss(a.key) - loss(b.key) || a.key.localeCompare(b.key));
}

/**
 * One chart per metric key by step, with NaN/±∞ markers, a "Log y" toggle each and an "N of M points" note when
 * downsampled. Dragging across any chart zooms every chart to that step range: the range is read
 * again from `GET /api/runs/:id/metrics?fromStep=&toStep=` (so a zoomed chart shows the stored
 * points of the range, not the whole-run downsample) until "Reset zoom". While zoomed the charts
 * hold that read; the whole-run series stays live underneath. Charts are drawn in view first
 * (metric-card.tsx): a run with 200 keys shows its first screen of charts without waiting for all.
 * The zoom, the log-y keys and the smoothing (EMA, off by default; raw line faint behind) live in
 * the URL (`fromStep=&toStep=`, `logy=loss,grad_norm`, `smooth=0.6`), so a reload or a shared
 * link shows the same view; a bad value there is ignored.
 */
export function MetricSections({
  runId,
  metrics,
  activity,
}: {
  runId: number;
  metrics: RunMetricsView | undefined;
  activity?: AnnotationSource;
}) {
  const { view, update, toggleLogKey: toggleLog } = useChartViewUrl();
  const { zoom, logKeys } = view;
  const setZoom = useCallback((next: ZoomRange | null) => update({ zoom: next }), [update]);
  const [smoothing, setSmoothing] = useUrlSmoothing(0);
  const [showAnnotations, setShowAnnotations] = useState(true);
  const placed = useRunAnnotations(runId, metrics, activity);
  const stablePlaced = placed.length === 0 ? NO_ANNOTATIONS : placed;
  // Charts in view mount at once (MetricCard); the others a few per idle slot, in page order.
  const budget = useBackgroundBudget(metrics?.series.length ?? 0);
  const zoomed = useQuery({
    queryKey: zoom ? metricsRangeQueryKey(runId, zoom) : ["run-metrics-range", runId, "none"],
    queryFn: ({ signal }) => fetchRunMetricsRange(runId, zoom!, signal),
    enabled: zoom !== null,
    placeholderData: keepPreviousData,
  });
  if (!metrics) {
    return (
      <Card aria-busy="true">
        <CardHeader>
          <CardTitle>Metrics</CardTitle>
        </CardHeader>
        <CardContent className="h-48 text-sm text-muted-fg">Loading metric series…</CardContent>
      </Card>
    );
  }
  if (metrics.series.length === 0) {
    return (
      <Card>
        <CardHeader>
          <CardTitle>Metrics</CardTitle>
        </CardHeader>
        <CardContent className="text-sm text-muted-fg">
          No metric points yet. Workers send them with run.metrics (key, step, value).
        </CardContent>
      </Card>
    );
  }
  const shown = zoom && zoomed.data ? zoomed.data : metrics;
  // Keys with no point in the range keep their card (an empty chart), so the grid does not jump.
  const series = orderSeries(metrics.series).map((s) =>
    zoom ? (shown.series.find((z) => z.key === s.key) ?? { ...s, points: [], shown: 0 }) : s,
  );
  return (
    <section aria-label="Metrics" className="grid gap-2">
      <div
        className="flex min-h-8 flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-fg"
        data-testid="metric-zoom"
      >
        {zoom ? (
          <>
            <span className="font-medium text-foreground tabular-nums" role="status">
              Zoomed to steps {formatCount(zoom.fromStep)}–{formatCount(zoom.toStep)}
              {zoomed.isFetching ? " · loading…" : ""}
            </span>
            {zoomed.error && (
              <span className="text-failed">
                Could not load the range ({zoomed.error.message}).
              </span>
            )}
            <Button variant="outline" size="sm" onClick={() => setZoom(null)}>
              <ZoomOut aria-hidden /> Reset zoom
            </Button>
          </>
        ) : (
          <span>
            Drag across a chart to zoom every chart to those steps (read again at full resolution).
          </span>
        )}
        <SmoothingSlider value={smoothing} onChange={setSmoothing} />
        {placed.length > 0 && (
          <label className="ml-auto flex items-center gap-1.5">
            <input
              type="checkbox"
              className="size-3.5 accent-primary"
              checked={showAnnotations}
              onChange={(e) => setShowAnnotations(e.target.checked)}
              data-testid="annotations-toggle"
            />
            Annotations ({placed.length}): checkpoints, warnings, plan decisions
          </label>
        )}
      </div>
      <div
        className={cn(
          "grid gap-4",
          series.length > 1 && "lg:grid-cols-2",
          series.length > 2 && "2xl:grid-cols-3",
        )}
      >
        {series.map((s, i) => (
          <MetricCard
            key={s.key}
            series={s}
            color={seriesColor(i)}
            zoomed={zoom !== null}
            logY={logKeys.has(s.key)}
            smoothing={smoothing}
            onLogY={toggleLog}
            onZoom={setZoom}
            annotations={showAnnotations ? stablePlaced : undefined}
            mountAnyway={i < budget}
          />
        ))}
      </div>
      {showAnnotations && <AnnotationList placed={placed} />}
    </section>
  );
}
