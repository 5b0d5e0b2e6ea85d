"use client";

import { TimeSeriesChart, type TimeSeries } from "@/components/charts/time-series-chart";
import type { ServingRunView } from "@/lib/view-models/serving";

/** One line of a serving chart: the metric `key`, its legend `label`, colour, and a factor applied to every value (`100` for 0..1 → %). */
export interface ServingLine {
  key: string;
  label: string;
  color: string;
  scale?: number;
}

/** What every chart of one serving panel shares: the window (epoch ms), height, where lines break, sweep markers. */
export interface ServingChartFrame {
  fromMs: number;
  toMs: number;
  height: number;
  maxGapMs: number;
  markers: ReadonlyArray<{ tMs: number; label: string }>;
  /** The panel's charts share one crosshair and tooltip time (one id per panel). */
  syncId: string;
}

/** One chart of a serving panel: title, lines, y-axis label with unit, value format, optional fixed y range. */
export interface ServingChartSpec {
  title: string;
  lines: readonly ServingLine[];
  yLabel: string;
  format: (v: number) => string;
  yDomain?: [number, number];
  testId?: string;
}

/** The run's series for `lines`, scaled; lines without a point are left out (no empty legend entries). */
export function servingSeries(run: ServingRunView, lines: readonly ServingLine[]): TimeSeries[] {
  return lines
    .map((l) => {
      const s = run.series.find((x) => x.key === l.key);
      return {
        key: l.key,
        label: l.label,
        color: l.color,
        points: (s?.points ?? []).map((p) => ({ tMs: p.tMs, value: p.value * (l.scale ?? 1) })),
      };
    })
    .filter((s) => s.points.length > 0);
}

/** A titled block of a serving panel; `children` are its charts. */
export function ChartBlock({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="grid min-w-0 content-start gap-1">
      <h3 className="text-[13px] font-medium text-muted-fg">{title}</h3>
      {children}
    </div>
  );
}

/** One titled time-series chart of a serving run, drawn from a {@link ServingChartSpec}. */
export function ServingChart({
  run,
  frame,
  spec,
  children,
}: {
  run: ServingRunView;
  frame: ServingChartFrame;
  spec: ServingChartSpec;
  children?: React.ReactNode;
}) {
  return (
    <ChartBlock title={spec.title}>
      <TimeSeriesChart
        {...frame}
        series={servingSeries(run, spec.lines)}
        yLabel={spec.yLabel}
        yDomain={spec.yDomain}
        format={spec.format}
        testId={spec.testId}
      />
      {children}
    </ChartBlock>
  );
}

/** A latest figure of a serving panel: small label over a tabular value. */
export function Figure({
  label,
  value,
  testId,
}: {
  label: string;
  value: string;
  testId?: string;
}) {
  return (
    <div className="grid gap-0.5" data-testid={testId}>
      <span className="text-[11px] text-muted-fg">{label}</span>
      <span className="text-sm font-medium tabular-nums">{value}</span>
    </div>
  );
}
