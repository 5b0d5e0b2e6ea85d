"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { TimeRangePicker } from "@/components/charts/time-range-picker";
import { TimeSeriesChart, type TimeSeries } from "@/components/charts/time-series-chart";
import { gpuSummary } from "@/components/hosts/gpu-summary";
import { GpuRow, HeartbeatAge, HostFacts } from "@/components/hosts/host-card";
import { HostStateBadge } from "@/components/hosts/host-state-badge";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { LIST_REFRESH_MS } from "@/components/live/coalesce";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { formatMiB, formatPct } from "@/components/pipelines/units";
import { RelativeTime } from "@/components/runs/relative-time";
import { RunDuration } from "@/components/runs/run-duration";
import { StatusBadge } from "@/components/runs/status-badge";
import { HostServingCard } from "@/components/serving/serving-cards";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { fetchHost } from "@/lib/api/fetchers/hosts";
import { hostQueryKey } from "@/lib/api/query-keys";
import { pickDurationUnit, withUnitHeader } from "@/lib/column-format";
import { formatNumber } from "@/lib/format";
import { runPath, runsPath } from "@/lib/paths";
import { runDurationS } from "@/lib/run-columns";
import { timeRangeSearch, timeRangeWords, type TimeRange } from "@/lib/time-range";
import type { HostDetailView } from "@/lib/view-models/hosts";
import type { ServingWindowView } from "@/lib/view-models/serving";

const CHART_HEIGHT = 170;
/** "30 s", "2 min", "1.5 h": the width of a chart's averaging buckets. */
function bucketWords(s: number): string {
  return s < 120
    ? `${s} s`
    : s < 3600
      ? `${formatNumber(s / 60)} min`
      : `${formatNumber(s / 3600)} h`;
}

/** The host page's charts share one crosshair. */
const SYNC_ID = "host-charts";

/** The live host page: state, GPUs now and over the chosen window (URL `range`, default the last hour), CPU/RAM/disk, and the host's runs. */
export function HostDetail({
  initial,
  initialServing,
  renderedAt,
  range,
}: {
  initial: HostDetailView;
  initialServing: ServingWindowView;
  renderedAt: number;
  range: TimeRange;
}) {
  const live = useLiveTopics(["runs"]);
  const rangeSearch = timeRangeSearch(range);
  const words = timeRangeWords(range);
  useLiveInvalidate(["hosts", "runs"], [hostQueryKey(initial.name, rangeSearch)], {
    minIntervalMs: LIST_REFRESH_MS,
  });
  const { data: host, error } = useQuery({
    queryKey: hostQueryKey(initial.name, rangeSearch),
    queryFn: ({ signal }) => fetchHost(initial.name, signal, rangeSearch),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const fromMs = host.windowFromMs;
  const toMs = host.windowToMs;
  // Long windows have wide buckets: join neighbouring buckets, break the line only where more than two are missing.
  const maxGapMs = Math.max(150_000, 2.5 * host.gpuBucketS * 1000);
  const summary = gpuSummary(host.facts);
  // One duration unit for the runs column, named in its header (lib/column-format.ts).
  const durationUnit = pickDurationUnit(
    host.runs.map((r) => runDurationS(r, Date.parse(host.asOf))),
  );
  const gpuLines = (
    pick: (p: HostDetailView["gpuSeries"][number]["points"][number]) => number | null,
  ): TimeSeries[] =>
    host.gpuSeries.map((g, i) => ({
      key: String(g.index),
      label: `GPU ${g.index}`,
      color: seriesColor(i),
      points: g.points.map((p) => ({ tMs: p.tMs, value: pick(p) })),
    }));

  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1 className="text-lg font-semibold tracking-tight">{host.name}</h1>
          <HostStateBadge state={host.state} />
          <HeartbeatAge host={host} className="text-[13px]" />
          <Link href="/hosts" className="ml-auto text-[13px] text-link hover:underline">
            All hosts
          </Link>
        </div>
        <p className="text-[13px] text-muted-fg">
          {summary ? summary.label : "No GPUs reported"} · heartbeat every{" "}
          {formatNumber(host.heartbeatIntervalS)} s · stale after 3 missed, offline after 5 min
        </p>
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh this host ({error.message}); showing the last data received.
        </p>
      )}

      <div className="grid gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(340px,1fr)]">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>GPUs now</CardTitle>
            {summary && (
              <CardDescription className="ml-auto tabular-nums">
                {formatPct(summary.utilPct)} mean util · {formatMiB(summary.memUsedMiB)} of{" "}
                {formatMiB(summary.memTotalMiB)} used
              </CardDescription>
            )}
          </CardHeader>
          <CardContent className="grid gap-2">
            {host.facts?.gpus.length ? (
              <>
                <div className="grid grid-cols-[3.25rem_minmax(3rem,1fr)_2.75rem_minmax(6.5rem,auto)_3rem] gap-x-2 text-[11px] text-muted-fg">
                  <span />
                  <span>utilisation</span>
                  <span />
                  <span className="text-right">memory</span>
                  <span className="text-right">temp</span>
                </div>
                {host.facts.gpus.map((g) => (
                  <GpuRow key={g.index} gpu={g} />
                ))}
              </>
            ) : (
              <p className="text-sm text-muted-fg">
                {host.facts
                  ? "This host reported no GPUs."
                  : "No heartbeat with hardware facts yet."}
              </p>
            )}
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>CPU, memory and disk</CardTitle>
          </CardHeader>
          <CardContent>
            <HostFacts host={host} className="sm:grid-cols-2" />
          </CardContent>
        </Card>
      </div>

      <TimeRangePicker key={rangeSearch} range={range} nowMs={renderedAt} />
      <div className="grid gap-4 lg:grid-cols-2 2xl:grid-cols-3">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>GPU utilisation, {words}</CardTitle>
            <CardDescription className="ml-auto">
              {bucketWords(host.gpuBucketS)} means
            </CardDescription>
          </CardHeader>
          <CardContent>
            <TimeSeriesChart
              series={gpuLines((p) => p.utilPct)}
              fromMs={fromMs}
              toMs={toMs}
              yLabel="util (%)"
              yDomain={[0, 100]}
              format={(v) => formatPct(v)}
              height={CHART_HEIGHT}
              syncId={SYNC_ID}
              maxGapMs={maxGapMs}
              testId="gpu-util-chart"
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>GPU memory used, {words}</CardTitle>
            <CardDescription className="ml-auto">GiB</CardDescription>
          </CardHeader>
          <CardContent>
            <TimeSeriesChart
              series={gpuLines((p) => (p.memUsedMiB === null ? null : p.memUsedMiB / 1024))}
              fromMs={fromMs}
              toMs={toMs}
              yLabel="used (GiB)"
              yMax={Math.max(0, ...host.gpuSeries.map((g) => (g.memTotalMiB ?? 0) / 1024))}
              format={(v) => `${formatNumber(v, 1)} GiB`}
              height={CHART_HEIGHT}
              syncId={SYNC_ID}
              maxGapMs={maxGapMs}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>GPU temperature, {words}</CardTitle>
            <CardDescription className="ml-auto">°C</CardDescription>
          </CardHeader>
          <CardContent>
            <TimeSeriesChart
              series={gpuLines((p) => p.tempC)}
              fromMs={fromMs}
              toMs={toMs}
              yLabel="temp (°C)"
              fit
              format={(v) => `${Math.round(v)} °C`}
              height={CHART_HEIGHT}
              syncId={SYNC_ID}
              maxGapMs={maxGapMs}
            />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>CPU and RAM, {words}</CardTitle>
            <CardDescription className="ml-auto">
              {bucketWords(host.hostBucketS)} means
            </CardDescription>
          </CardHeader>
          <CardContent>
            <TimeSeriesChart
              series={[
                {
                  key: "cpu",
                  label: "CPU",
                  color: "var(--chart-4)",
                  points: host.lastHour.map((p) => ({ tMs: p.tMs, value: p.cpuPct })),
                },
                {
                  key: "ram",
                  label: "RAM used",
                  color: "var(--chart-3)",
                  points: host.lastHour.map((p) => ({ tMs: p.tMs, value: p.ramPct })),
                },
              ]}
              fromMs={fromMs}
              toMs={toMs}
              yLabel="%"
              yDomain={[0, 100]}
              format={(v) => formatPct(v)}
              height={CHART_HEIGHT}
              syncId={SYNC_ID}
              maxGapMs={maxGapMs}
              testId="cpu-ram-chart"
            />
          </CardContent>
        </Card>
      </div>

      <HostServingCard
        hostName={host.name}
        initial={initialServing}
        renderedAt={renderedAt}
        rangeSearch={rangeSearch}
        rangeWords={words}
      />

      <Card className="min-w-0">
        <CardHeader>
          <CardTitle>Runs on {host.name}</CardTitle>
          <CardDescription className="ml-auto">
            <Link href={runsPath({ host: host.name })} className="text-link hover:underline">
              All runs on this host
            </Link>
          </CardDescription>
        </CardHeader>
        {host.runs.length === 0 ? (
          <CardContent className="text-sm text-muted-fg">No runs on this host yet.</CardContent>
        ) : (
          <Table>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Name</TableHead>
                <TableHead>Kind</TableHead>
                <TableHead>Status</TableHead>
                <TableHead>Started</TableHead>
                <TableHead className="text-right">
                  {withUnitHeader("Duration", durationUnit)}
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {host.runs.map((r) => (
                <TableRow key={r.id}>
                  <TableCell className="max-w-96 truncate">
                    <Link
                      href={runPath(r.id)}
                      className="font-medium hover:underline"
                      title={r.name}
                    >
                      {r.name}
                    </Link>
                  </TableCell>
                  <TableCell className="text-muted-fg">{r.kind}</TableCell>
                  <TableCell>
                    <StatusBadge state={r.state} mismatches={r.countMismatches} />
                  </TableCell>
                  <TableCell>
                    <RelativeTime iso={r.startedAt} />
                  </TableCell>
                  <TableCell className="text-right">
                    <RunDuration run={r} unit={durationUnit} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </Card>
    </div>
  );
}
