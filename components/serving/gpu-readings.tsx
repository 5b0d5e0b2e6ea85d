"use client";

import { formatNumber, MISSING } from "@/lib/format";
import { DCGM_KEYS, dcgmGpuKey, parseDcgmGpuKey, type DcgmGpuField } from "@/lib/serving/dcgm";
import type { ServingRunView } from "@/lib/view-models/serving";

import {
  Figure,
  ServingChart,
  type ServingChartFrame,
  type ServingChartSpec,
  type ServingLine,
} from "./series-chart-block";

/** Per field: chart title, y-axis label, value format (of the scaled value), the host-wide key drawn when no per-GPU series exists, scale, fixed range. */
const GPU_CHARTS: ReadonlyArray<{
  field: DcgmGpuField;
  title: string;
  yLabel: string;
  format: (v: number) => string;
  hostKey: string;
  scale?: number;
  yDomain?: [number, number];
}> = [
  {
    field: "util_pct",
    title: "GPU utilisation",
    yLabel: "util (%)",
    format: (v) => `${formatNumber(v, 0)}%`,
    hostKey: DCGM_KEYS.gpuUtilPct,
    yDomain: [0, 100],
  },
  {
    field: "mem_used_mib",
    title: "GPU memory used",
    yLabel: "GiB",
    format: (v) => `${formatNumber(v, 1)} GiB`,
    hostKey: DCGM_KEYS.gpuMemUsedMiB,
    scale: 1 / 1024,
  },
  {
    field: "power_w",
    title: "GPU power",
    yLabel: "W",
    format: (v) => `${formatNumber(v, 0)} W`,
    hostKey: DCGM_KEYS.gpuPowerW,
  },
  {
    field: "temp_c",
    title: "GPU temperature",
    yLabel: "°C",
    format: (v) => `${formatNumber(v, 0)} °C`,
    hostKey: DCGM_KEYS.gpuTempC,
  },
];

/** True when the run carries any dcgm-exporter reading (scraped with `--dcgm`). */
export function hasGpuReadings(run: ServingRunView): boolean {
  const isGpu = (key: string) =>
    (Object.values(DCGM_KEYS) as string[]).includes(key) || parseDcgmGpuKey(key) !== null;
  return run.series.some((s) => isGpu(s.key)) || Object.keys(run.latest).some(isGpu);
}

/** GPU indices with a series of `field`, in numeric order. */
function gpusWith(run: ServingRunView, field: DcgmGpuField): string[] {
  const gpus = run.series
    .map((s) => parseDcgmGpuKey(s.key))
    .filter((k) => k !== null && k.field === field)
    .map((k) => k!.gpu);
  return [...new Set(gpus)].sort((a, b) => Number(a) - Number(b));
}

function chartSpec(run: ServingRunView, chart: (typeof GPU_CHARTS)[number]): ServingChartSpec {
  const gpus = gpusWith(run, chart.field);
  const lines: ServingLine[] =
    gpus.length > 0
      ? gpus.map((gpu, i) => ({
          key: dcgmGpuKey(gpu, chart.field),
          label: `GPU ${gpu}`,
          color: `var(--chart-${(i % 8) + 1})`,
          scale: chart.scale,
        }))
      : [
          {
            key: chart.hostKey,
            label:
              chart.field === "util_pct"
                ? "mean of GPUs"
                : chart.field === "temp_c"
                  ? "hottest GPU"
                  : "all GPUs",
            color: "var(--chart-1)",
            scale: chart.scale,
          },
        ];
  return {
    title: gpus.length > 1 ? `${chart.title} by GPU` : chart.title,
    lines,
    yLabel: chart.yLabel,
    format: chart.format,
    yDomain: chart.yDomain,
    testId: `serving-gpu-${chart.field}-chart`,
  };
}

/** Latest host-wide GPU figures of a serving run: mean utilisation, memory and power summed over GPUs, hottest GPU. */
export function GpuFigures({ latest }: { latest: Record<string, number> }) {
  const v = (key: string, format: (x: number) => string) =>
    latest[key] !== undefined ? format(latest[key]) : MISSING;
  return (
    <div
      className="grid grid-cols-2 gap-x-6 gap-y-2 border-t border-border pt-3 sm:grid-cols-4"
      data-testid="serving-gpu-latest"
    >
      <h3 className="col-span-full text-[13px] font-medium text-muted-fg">
        GPUs, from dcgm-exporter
      </h3>
      <Figure
        label="GPU util (mean)"
        value={v(DCGM_KEYS.gpuUtilPct, (x) => `${formatNumber(x, 0)}%`)}
        testId="serving-gpu-util"
      />
      <Figure
        label="GPU memory used"
        value={v(DCGM_KEYS.gpuMemUsedMiB, (x) => `${formatNumber(x / 1024, 1)} GiB`)}
      />
      <Figure label="GPU power" value={v(DCGM_KEYS.gpuPowerW, (x) => `${formatNumber(x, 0)} W`)} />
      <Figure
        label="hottest GPU"
        value={v(DCGM_KEYS.gpuTempC, (x) => `${formatNumber(x, 0)} °C`)}
      />
    </div>
  );
}

/** The GPU charts of a serving run (utilisation, memory, power, temperature), one line per GPU. */
export function GpuCharts({ run, frame }: { run: ServingRunView; frame: ServingChartFrame }) {
  return (
    <div className="grid gap-4 lg:grid-cols-2 2xl:grid-cols-4" data-testid="serving-gpu-charts">
      {GPU_CHARTS.map((chart) => (
        <ServingChart key={chart.field} run={run} frame={frame} spec={chartSpec(run, chart)} />
      ))}
    </div>
  );
}
