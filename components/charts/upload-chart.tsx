"use client";

import { Area, CartesianGrid, ComposedChart, Line, Tooltip, XAxis, YAxis } from "recharts";

import { formatClock, formatClockSeconds, formatInterval } from "@/components/pipelines/units";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { formatCompact, formatCount, formatNumber } from "@/lib/format";
import type { UploadBucket, UploadSeriesView } from "@/lib/view-models/pipeline";

import {
  axisLabelStyle,
  axisTick,
  ChartLegend,
  ChartPlaceholder,
  LegendItem,
  niceYAxis,
  TooltipFrame,
} from "./sweep-chart-parts";
import { timeTicks } from "./time-series-chart";

const DAY_MS = 86_400_000;

/** Tick label for a time axis: clock time, with the date when the range spans more than a day. */
function tickLabel(t: number, spanMs: number, zone: string | undefined): string {
  if (spanMs <= DAY_MS) return formatClock(t, zone);
  const day = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    timeZone: zone ?? "UTC",
  }).format(new Date(t));
  return `${day} ${formatClock(t, zone)}`;
}

/**
 * "S3 uploads over time": objects uploaded so far (line, left axis) and the upload rate per time
 * bucket (bars, right axis, uploads/s), summed over workers.
 */
export function UploadChart({
  uploads,
  height = 240,
}: {
  uploads: UploadSeriesView;
  height?: number;
}) {
  const zone = useTimeZone();
  // The cumulative line joins the buckets in which workers reported (straight between reports,
  // not a staircase of carried-forward values); the rate fills every bucket.
  const rows = uploads.buckets.map((b) => ({ ...b, reported: b.sampled ? b.uploaded : null }));
  if (rows.length === 0)
    return (
      <ChartPlaceholder height={height + 24}>No s3.uploaded counter reported yet</ChartPlaceholder>
    );
  const bucketMs = uploads.bucketS * 1000;
  const from = rows[0]!.tMs;
  const to = rows[rows.length - 1]!.tMs + bucketMs;
  const yUp = niceYAxis(rows.map((r) => r.uploaded));
  const yRate = niceYAxis(rows.map((r) => r.ratePerS));
  const ticks = timeTicks(from, to);

  return (
    <div className="grid gap-2" data-testid="upload-chart">
      <ChartLegend>
        <LegendItem color="var(--chart-1)">Uploaded so far (left)</LegendItem>
        <span className="inline-flex items-center gap-1.5">
          <span
            aria-hidden
            className="h-2.5 w-3.5 rounded-[1px] border-t-2 border-[var(--chart-2)] bg-[var(--chart-2)]/15"
          />
          Upload rate, uploads/s (right; {formatInterval(uploads.bucketS)} buckets)
        </span>
      </ChartLegend>
      <ComposedChart
        responsive
        data={rows}
        style={{ width: "100%", height }}
        margin={{ top: 8, right: 4, bottom: 0, left: 4 }}
      >
        <CartesianGrid stroke="var(--chart-grid)" vertical={false} />
        <XAxis
          type="number"
          dataKey="tMs"
          domain={[from, to]}
          ticks={ticks}
          tickFormatter={(t: number) => tickLabel(t, to - from, zone)}
          tick={axisTick}
          tickLine={false}
          axisLine={{ stroke: "var(--chart-grid)" }}
        />
        <YAxis
          yAxisId="up"
          domain={yUp.domain}
          ticks={yUp.ticks}
          tickFormatter={formatCompact}
          tick={axisTick}
          tickLine={false}
          axisLine={false}
          width={56}
          label={{
            value: "uploaded (objects)",
            angle: -90,
            position: "insideLeft",
            offset: 4,
            style: axisLabelStyle,
          }}
        />
        <YAxis
          yAxisId="rate"
          orientation="right"
          domain={yRate.domain}
          ticks={yRate.ticks}
          tickFormatter={formatCompact}
          tick={axisTick}
          tickLine={false}
          axisLine={false}
          width={52}
          label={{
            value: "uploads/s",
            angle: 90,
            position: "insideRight",
            offset: 4,
            style: axisLabelStyle,
          }}
        />
        <Tooltip
          cursor={{ fill: "var(--muted)", opacity: 0.5 }}
          isAnimationActive={false}
          content={(p) => {
            const row = p.payload?.[0]?.payload as UploadBucket | undefined;
            if (!p.active || !row) return null;
            return (
              <TooltipFrame
                title={`${formatClockSeconds(row.tMs, zone)} – ${formatClockSeconds(row.tMs + bucketMs, zone)}`}
              >
                <span>
                  uploaded so far{" "}
                  <span className="font-medium text-foreground">{formatCount(row.uploaded)}</span>
                </span>
                <span>
                  rate{" "}
                  <span className="font-medium text-foreground">
                    {row.ratePerS === null ? "—" : `${formatNumber(row.ratePerS)} uploads/s`}
                  </span>
                </span>
              </TooltipFrame>
            );
          }}
        />
        <Area
          yAxisId="rate"
          type="stepAfter"
          dataKey="ratePerS"
          stroke="var(--chart-2)"
          strokeWidth={1.25}
          fill="var(--chart-2)"
          fillOpacity={0.12}
          activeDot={false}
          isAnimationActive={false}
        />
        <Line
          yAxisId="up"
          type="linear"
          dataKey="reported"
          stroke="var(--chart-1)"
          strokeWidth={2}
          dot={false}
          activeDot={{ r: 3 }}
          connectNulls
          isAnimationActive={false}
        />
      </ComposedChart>
    </div>
  );
}
