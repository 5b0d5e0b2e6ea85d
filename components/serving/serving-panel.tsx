"use client";

import { CircleCheck, Unplug } from "lucide-react";
import Link from "next/link";

import { useLatencyUnit } from "@/components/charts/latency-unit";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { useNow } from "@/components/live/use-now";
import { RelativeTime } from "@/components/runs/relative-time";
import { Badge } from "@/components/ui/badge";
import { formatNumber, formatTokPerS, MISSING } from "@/lib/format";
import { formatLatencyIn } from "@/lib/latency-unit";
import { runPath } from "@/lib/paths";
import { SERVING_KEYS as K } from "@/lib/serving/derive";
import { servingStallAfterS } from "@/lib/serving/stall";
import type { ServingRunView, SweepLevelMark } from "@/lib/view-models/serving";

import { GpuCharts, GpuFigures, hasGpuReadings } from "./gpu-readings";
import {
  Figure,
  ServingChart,
  servingSeries,
  type ServingChartFrame,
  type ServingChartSpec,
} from "./series-chart-block";

const CHART_HEIGHT = 150;

interface ServingRunPanelProps {
  run: ServingRunView;
  fromMs: number;
  toMs: number;
  /** Sweep levels of a benchmark drawn on every chart. */
  levels?: readonly SweepLevelMark[];
  /** The client's τ, shown next to the server's accept length. */
  clientAcceptLength?: number | null;
  /** Link the run's name to its page (off on the serving run's own page). */
  linkName?: boolean;
}

/** The panel's charts besides TTFT (drawn with the accept length below it). */
const CHARTS: readonly ServingChartSpec[] = [
  {
    title: "Requests in flight and queued",
    lines: [
      { key: K.runningRequests, label: "running", color: "var(--chart-1)" },
      { key: K.queuedRequests, label: "queued", color: "var(--chart-5)" },
    ],
    yLabel: "requests",
    format: (x) => formatNumber(x, 0),
    testId: "serving-requests-chart",
  },
  {
    title: "KV-cache usage",
    lines: [{ key: K.kvCacheUsage, label: "KV usage", color: "var(--chart-2)", scale: 100 }],
    yLabel: "used (%)",
    yDomain: [0, 100],
    format: (x) => `${formatNumber(x, 1)}%`,
    testId: "serving-kv-chart",
  },
  {
    title: "Generation and prompt tok/s",
    lines: [
      { key: K.genTokPerS, label: "engine gen tok/s", color: "var(--chart-3)" },
      { key: K.generationTokPerS, label: "generated", color: "var(--chart-1)" },
      { key: K.promptTokPerS, label: "prompt", color: "var(--chart-4)" },
    ],
    yLabel: "tok/s",
    format: formatTokPerS,
  },
];

const TTFT_LINES = [
  { key: K.ttftMsP50, label: "TTFT p50", color: "var(--chart-2)" },
  { key: K.ttftMsP99, label: "TTFT p99", color: "var(--chart-5)" },
];

/** One scraped engine: up/down, latest figures and small charts of the window (gaps where it did not answer). */
export function ServingRunPanel({
  run,
  fromMs,
  toMs,
  levels = [],
  clientAcceptLength = null,
  linkName = true,
}: ServingRunPanelProps) {
  const v = run.latest;
  // "Answering" is what the last scrape said; once the run's stall threshold passed without one it is no
  // longer known (issue 12), at the same moment the run header turns from "Running · Live" to "Stale" (issue 25).
  const now = useNow();
  const quiet =
    run.lastSampleMs !== null && now - run.lastSampleMs > servingStallAfterS(run.intervalS) * 1000;
  // Latencies in the page's unit (or, alone, the one this engine's TTFT/ITL readings call for).
  const seriesMs = (...keys: string[]) =>
    run.series.filter((x) => keys.includes(x.key)).flatMap((x) => x.points.map((p) => p.value));
  const unit = useLatencyUnit("ttft", seriesMs(K.ttftMsP50, K.ttftMsP99));
  const itlUnit = useLatencyUnit("itl", seriesMs(K.itlMsP50, K.itlMsP99));
  const ms = unit === "s" ? 1 / 1000 : 1;
  const has = (key: string) => v[key] !== undefined;
  const maxGapMs = Math.max(3 * run.intervalS * 1000, 3 * ((toMs - fromMs) / 400));
  const markers = levels.map((l) => ({ tMs: l.startMs, label: l.label }));
  const frame: ServingChartFrame = {
    fromMs,
    toMs,
    height: CHART_HEIGHT,
    maxGapMs,
    markers,
    syncId: `serving-${run.runId}`,
  };
  const gpu = hasGpuReadings(run);
  const tau = run.series.some((s) => s.key === K.acceptLength) || clientAcceptLength !== null;
  const name = linkName ? (
    <Link href={runPath(run.runId)} className="font-medium hover:underline">
      {run.name}
    </Link>
  ) : (
    <span className="font-medium">{run.name}</span>
  );

  return (
    <div className="grid gap-3" data-testid="serving-run">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        {name}
        {run.up === false ? (
          <Badge tone="failed" title={run.url ?? undefined}>
            <Unplug aria-hidden />
            Engine down
            {run.downSinceMs !== null && (
              <>
                {" "}
                since <RelativeTime iso={new Date(run.downSinceMs).toISOString()} />
              </>
            )}
          </Badge>
        ) : run.up && quiet ? (
          <Badge tone="neutral" title="The last scrape answered, but none has come since">
            No recent scrape
          </Badge>
        ) : run.up ? (
          <Badge tone="succeeded" title={run.url ?? undefined}>
            <CircleCheck aria-hidden />
            Answering
          </Badge>
        ) : null}
        <span className="text-[13px] text-muted-fg">
          {run.url ?? ""} · every{" "}
          {formatNumber(run.intervalS, Number.isInteger(run.intervalS) ? 0 : 1)} s
          {run.lastSampleMs !== null && (
            <>
              {" "}
              · last scrape <RelativeTime iso={new Date(run.lastSampleMs).toISOString()} />
            </>
          )}
        </span>
      </div>
      <div className="grid grid-cols-3 gap-x-6 gap-y-2 sm:grid-cols-6" data-testid="serving-latest">
        <Figure
          label="running / queued"
          value={
            has(K.runningRequests)
              ? `${formatNumber(v[K.runningRequests], 0)} / ${has(K.queuedRequests) ? formatNumber(v[K.queuedRequests], 0) : MISSING}`
              : MISSING
          }
        />
        <Figure
          label="KV cache"
          value={has(K.kvCacheUsage) ? `${formatNumber(v[K.kvCacheUsage]! * 100, 1)}%` : MISSING}
          testId="serving-kv"
        />
        <Figure
          label="gen tok/s"
          value={formatTokPerS(v[K.genTokPerS] ?? v[K.generationTokPerS])}
        />
        <Figure
          label="TTFT p50 / p99"
          value={`${formatLatencyIn(v[K.ttftMsP50], unit)} / ${formatLatencyIn(v[K.ttftMsP99], unit)}`}
          testId="serving-ttft"
        />
        <Figure label="ITL p99" value={formatLatencyIn(v[K.itlMsP99], itlUnit)} />
        <Figure
          label={clientAcceptLength !== null ? "accept length server / client" : "accept length"}
          value={`${has(K.acceptLength) ? formatNumber(v[K.acceptLength], 2) : MISSING}${clientAcceptLength !== null ? ` / ${formatNumber(clientAcceptLength, 2)}` : ""}`}
        />
      </div>
      <div className="grid gap-4 lg:grid-cols-2 2xl:grid-cols-4">
        {CHARTS.map((spec) => (
          <ServingChart key={spec.title} run={run} frame={frame} spec={spec} />
        ))}
        <ServingChart
          run={run}
          frame={frame}
          spec={{
            title: tau ? "TTFT and accept length" : "TTFT p50 / p99",
            lines: TTFT_LINES.map((l) => ({ ...l, scale: ms })),
            yLabel: unit,
            format: (x) => formatLatencyIn(unit === "s" ? x * 1000 : x, unit),
            testId: "serving-ttft-chart",
          }}
        >
          {tau && (
            <TimeSeriesChart
              {...frame}
              height={90}
              series={servingSeries(run, [
                { key: K.acceptLength, label: "accept length", color: "var(--chart-3)" },
              ])}
              yLabel="τ"
              fit
              format={(x) => formatNumber(x, 2)}
              emptyText="No accept length from the server"
            />
          )}
        </ServingChart>
      </div>
      {gpu && <GpuFigures latest={v} />}
      {gpu && <GpuCharts run={run} frame={frame} />}
    </div>
  );
}
