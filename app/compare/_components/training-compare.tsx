"use client";

import { useQueries } from "@tanstack/react-query";

import { LogYToggle } from "@/components/charts/log-y-toggle";
import { OverlayMetricChart, type OverlaySeries } from "@/components/charts/overlay-metric-chart";
import { SmoothingSlider } from "@/components/charts/smoothing-slider";
import { useChartViewUrl, useUrlSmoothing } from "@/components/charts/use-chart-view-url";
import type { LiveStatus } from "@/components/live/live-client";
import { sharedRefetchIntervalFor } from "@/components/live/use-live-topics";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRunMetrics } from "@/lib/api/fetchers/runs";
import { metricsQueryKey } from "@/lib/api/query-keys";
import { distinctRunLabels } from "@/lib/run-labels";
import { cn } from "@/lib/utils";
import type { RunDetail } from "@/lib/view-models";

/** Default smoothing weight (TensorBoard's default). */
const DEFAULT_SMOOTHING = 0.6;

/** Losses first, then the other keys alphabetically. */
function orderKeys(keys: Iterable<string>): string[] {
  const loss = (k: string) => (/loss/i.test(k) ? 0 : 1);
  return [...new Set(keys)].sort((a, b) => loss(a) - loss(b) || a.localeCompare(b));
}

/**
 * The training part of /compare: one chart per metric key (loss, lr, grad_norm…) by step with a
 * line per run that has the key (the run's colour from `colors`), one smoothing slider for every
 * chart (EMA, raw line faint behind) and a "Log y" toggle per chart. Renders nothing when no
 * compared run has metric points. Smoothing and log-y keys live in the URL (`smooth=0.8`,
 * `logy=loss`; the default 0.6 keeps the URL plain), so a reload or a shared link shows the
 * same. Serving runs are left out (their steps are unix ms).
 */
export function TrainingCompare({
  runs,
  colors,
  live,
}: {
  runs: readonly RunDetail[];
  colors: readonly string[];
  live: LiveStatus;
}) {
  const { view, toggleLogKey: setLog } = useChartViewUrl();
  const logKeys = view.logKeys;
  const [smoothing, setSmoothing] = useUrlSmoothing(DEFAULT_SMOOTHING);
  const candidates = runs
    .map((run, i) => ({ run, color: colors[i]! }))
    .filter((c) => c.run.kind !== "serving");
  const results = useQueries({
    queries: candidates.map(({ run }) => ({
      queryKey: metricsQueryKey(run.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchRunMetrics(run.id, signal),
      // run:<id> pushes the metric series into this key; poll only while the socket is down.
      refetchInterval: sharedRefetchIntervalFor(live),
    })),
  });
  const loaded = candidates.map((c, i) => ({ ...c, metrics: results[i]?.data }));
  const withSeries = loaded.filter((l) => (l.metrics?.series.length ?? 0) > 0);
  if (withSeries.length === 0) {
    const loading =
      results.some((r) => r.isPending) && candidates.some((c) => c.run.kind === "training");
    return loading ? (
      <Card aria-busy="true">
        <CardHeader>
          <CardTitle>Training metrics</CardTitle>
        </CardHeader>
        <CardContent className="h-48 text-sm text-muted-fg">Loading metric series…</CardContent>
      </Card>
    ) : null;
  }
  const keys = orderKeys(withSeries.flatMap((l) => l.metrics!.series.map((s) => s.key)));
  // Two runs of one name (a repeated job) are told apart by id in the legends.
  const labels = distinctRunLabels(withSeries.map((l) => l.run));
  return (
    <section aria-label="Training metrics" className="grid gap-2" data-testid="training-compare">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h2 className="text-sm font-semibold">Training metrics by step</h2>
        <SmoothingSlider value={smoothing} onChange={setSmoothing} />
        <span className="text-xs text-muted-fg">
          EMA per run; the raw values are drawn faint behind.
        </span>
      </div>
      <div className={cn("grid gap-4", keys.length > 1 && "lg:grid-cols-2")}>
        {keys.map((key) => {
          const series: OverlaySeries[] = withSeries.flatMap((l) => {
            const s = l.metrics!.series.find((x) => x.key === key);
            return s
              ? [
                  {
                    key: String(l.run.id),
                    label: labels.get(l.run.id) ?? l.run.name,
                    color: l.color,
                    points: s.points,
                  },
                ]
              : [];
          });
          const bad = series.reduce(
            (n, s) => n + s.points.filter((p) => !Number.isFinite(p.value)).length,
            0,
          );
          const logY = logKeys.has(key);
          return (
            <Card key={key} className="min-w-0" data-testid="overlay-card" data-key={key}>
              <CardHeader>
                <CardTitle className="truncate font-mono text-[13px]" title={key}>
                  {key}
                  <span className="font-sans font-normal text-muted-fg"> by step</span>
                </CardTitle>
                <CardDescription className="ml-auto shrink-0 tabular-nums">
                  {series.length} run{series.length === 1 ? "" : "s"}
                </CardDescription>
                <LogYToggle on={logY} onChange={(on) => setLog(key, on)} testId="overlay-log-y" />
              </CardHeader>
              <CardContent className="grid gap-2">
                <OverlayMetricChart
                  metricKey={key}
                  series={series}
                  smoothing={smoothing}
                  logY={logY}
                />
                {bad > 0 && (
                  <p className="text-xs font-medium text-failed tabular-nums">
                    ▲ {bad} non-finite value{bad === 1 ? "" : "s"} not drawn (see each run&apos;s
                    page)
                  </p>
                )}
              </CardContent>
            </Card>
          );
        })}
      </div>
    </section>
  );
}
