"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ZoomOut } from "lucide-react";
import { useState } from "react";

import { LogYToggle } from "@/components/charts/log-y-toggle";
import { MetricChart, nonFiniteLabel, type ZoomRange } from "@/components/charts/metric-chart";
import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRunMetricsRange } from "@/lib/api/fetchers";
import { metricsRangeQueryKey } from "@/lib/api/query-keys";
import { formatCount } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";

import { AnnotationList, useRunAnnotations, type AnnotationSource } from "./run-annotations";

/** Losses first, then the other keys alphabetically. */
function orderSeries(series: readonly MetricSeriesView[]): MetricSeriesView[] {
  const loss = (k: string) => (/loss/i.test(k) ? 0 : 1);
  return [...series].sort((a, b) => loss(a.key) - loss(b.key) || a.key.localeCompare(b.key));
}

/** "1,004 of 1,000,000 points" (downsampled), "300 points"; zoomed: "212 points in the range". */
function pointsNote(s: MetricSeriesView, zoomed: boolean): string {
  if (zoomed) return `${formatCount(s.shown)} point${s.shown === 1 ? "" : "s"} in the range`;
  return s.shown < s.total
    ? `${formatCount(s.shown)} of ${formatCount(s.total)} points`
    : `${formatCount(s.total)} point${s.total === 1 ? "" : "s"}`;
}

/**
 * One chart per metric key by step, with NaN/±∞ markers, a "Log y" toggle each and an "N of M points" note when
 * downsampled. Dragging across any chart zooms every chart to that step range: the range is read
 * again from `GET /api/runs/:id/metrics?fromStep=&toStep=` (so a zoomed chart shows the stored
 * points of the range, not the whole-run downsample) until "Reset zoom". While zoomed the charts
 * hold that read; the whole-run series stays live underneath.
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
  const [zoom, setZoom] = useState<ZoomRange | null>(null);
  const [showAnnotations, setShowAnnotations] = useState(true);
  const placed = useRunAnnotations(runId, metrics, activity);
  const [logKeys, setLogKeys] = useState<ReadonlySet<string>>(new Set());
  const toggleLog = (key: string, on: boolean) =>
    setLogKeys((prev) => {
      const next = new Set(prev);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
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
        {series.map((s, i) => {
          const bad = s.points.filter((p) => !Number.isFinite(p.value));
          return (
            <Card key={s.key} className="min-w-0">
              <CardHeader>
                <CardTitle className="truncate font-mono text-[13px]" title={s.key}>
                  {s.key}
                  <span className="font-sans font-normal text-muted-fg"> by step</span>
                </CardTitle>
                <CardDescription
                  className="ml-auto shrink-0 tabular-nums"
                  data-testid="metric-points"
                  title={
                    s.shown < s.total
                      ? "Each step column keeps its first, lowest, highest and last value, so spikes stay visible; every NaN/±∞ is kept"
                      : undefined
                  }
                >
                  {pointsNote(s, zoom !== null)}
                </CardDescription>
                <LogYToggle
                  on={logKeys.has(s.key)}
                  onChange={(on) => toggleLog(s.key, on)}
                  testId="metric-log-y"
                />
              </CardHeader>
              <CardContent className="grid gap-2">
                <MetricChart
                  series={s}
                  color={seriesColor(i)}
                  onZoom={setZoom}
                  logY={logKeys.has(s.key)}
                  annotations={showAnnotations ? placed : undefined}
                />
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
          );
        })}
      </div>
      {showAnnotations && <AnnotationList placed={placed} />}
    </section>
  );
}
