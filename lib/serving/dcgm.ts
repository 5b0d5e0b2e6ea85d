import type { ExpositionSample } from "./exposition";
import { gaugeMean, gaugeSum } from "./series";

/**
 * GPU readings from NVIDIA's dcgm-exporter (`GET :9400/metrics`, DCGM field names such as
 * `DCGM_FI_DEV_GPU_UTIL`, one series per `gpu` label), stored next to the serving values so a
 * busy engine and an idle GPU show on one page. Keys: `serving/gpu_util_pct` (mean over GPUs,
 * 0-100), `serving/gpu_mem_used_mib` (sum, MiB), `serving/gpu_power_w` (sum, W).
 */
export const DCGM_KEYS = {
  gpuUtilPct: "serving/gpu_util_pct",
  gpuMemUsedMiB: "serving/gpu_mem_used_mib",
  gpuPowerW: "serving/gpu_power_w",
} as const;

/** The DCGM values of one scrape by key; fields the exporter does not serve are left out. */
export function deriveDcgmValues(samples: readonly ExpositionSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (key: string, v: number | null) => {
    if (v !== null && !Number.isNaN(v)) out[key] = v;
  };
  put(DCGM_KEYS.gpuUtilPct, gaugeMean(samples, "DCGM_FI_DEV_GPU_UTIL"));
  put(DCGM_KEYS.gpuMemUsedMiB, gaugeSum(samples, "DCGM_FI_DEV_FB_USED"));
  put(DCGM_KEYS.gpuPowerW, gaugeSum(samples, "DCGM_FI_DEV_POWER_USAGE"));
  return out;
}
