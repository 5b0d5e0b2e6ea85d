import type { ExpositionSample } from "./exposition";
import { gaugeMean, gaugeSum } from "./series";

/**
 * GPU readings from NVIDIA's dcgm-exporter (`GET :9400/metrics`, DCGM field names such as
 * `DCGM_FI_DEV_GPU_UTIL`, one series per `gpu` label), stored next to the serving values so a
 * busy engine and an idle GPU show on one page. Pure.
 *
 * Keys (docs/protocol.md), each left out when the exporter does not serve its field:
 * - whole host: `serving/gpu_util_pct` (mean over GPUs, 0-100), `serving/gpu_mem_used_mib` (sum,
 *   MiB), `serving/gpu_power_w` (sum, W), `serving/gpu_temp_c` (hottest GPU, °C);
 * - per GPU (by the exporter's `gpu` index label): `serving/gpu/<index>/util_pct`,
 *   `…/mem_used_mib`, `…/power_w`, `…/temp_c`.
 */
export const DCGM_KEYS = {
  gpuUtilPct: "serving/gpu_util_pct",
  gpuMemUsedMiB: "serving/gpu_mem_used_mib",
  gpuPowerW: "serving/gpu_power_w",
  gpuTempC: "serving/gpu_temp_c",
} as const;

/** The per-GPU readings, by key suffix, and the DCGM field each comes from. */
export const DCGM_GPU_FIELDS = {
  util_pct: "DCGM_FI_DEV_GPU_UTIL",
  mem_used_mib: "DCGM_FI_DEV_FB_USED",
  power_w: "DCGM_FI_DEV_POWER_USAGE",
  temp_c: "DCGM_FI_DEV_GPU_TEMP",
} as const;

/** A per-GPU reading's key suffix (`util_pct`, `mem_used_mib`, `power_w`, `temp_c`). */
export type DcgmGpuField = keyof typeof DCGM_GPU_FIELDS;

/** Key of one GPU's reading: `serving/gpu/<index>/<field>`. */
export function dcgmGpuKey(gpu: string, field: DcgmGpuField): string {
  return `serving/gpu/${gpu}/${field}`;
}

const GPU_KEY_RE = /^serving\/gpu\/(\d{1,4})\/(util_pct|mem_used_mib|power_w|temp_c)$/;

/** The GPU index and field of a per-GPU key, or null for any other key. */
export function parseDcgmGpuKey(key: string): { gpu: string; field: DcgmGpuField } | null {
  const m = GPU_KEY_RE.exec(key);
  return m ? { gpu: m[1] as string, field: m[2] as DcgmGpuField } : null;
}

/** A `gpu` label the keys accept: a decimal index of at most 4 digits (dcgm-exporter writes `0`, `1`…). */
const GPU_INDEX_RE = /^\d{1,4}$/;

/** The DCGM values of one scrape by key (see {@link DCGM_KEYS}); fields the exporter does not serve are left out, NaN skipped. */
export function deriveDcgmValues(samples: readonly ExpositionSample[]): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (key: string, v: number | null) => {
    if (v !== null && !Number.isNaN(v)) out[key] = v;
  };
  put(DCGM_KEYS.gpuUtilPct, gaugeMean(samples, DCGM_GPU_FIELDS.util_pct));
  put(DCGM_KEYS.gpuMemUsedMiB, gaugeSum(samples, DCGM_GPU_FIELDS.mem_used_mib));
  put(DCGM_KEYS.gpuPowerW, gaugeSum(samples, DCGM_GPU_FIELDS.power_w));
  const temps = samples
    .filter((s) => s.name === DCGM_GPU_FIELDS.temp_c && !Number.isNaN(s.value))
    .map((s) => s.value);
  put(DCGM_KEYS.gpuTempC, temps.length > 0 ? Math.max(...temps) : null);
  for (const [field, name] of Object.entries(DCGM_GPU_FIELDS) as Array<[DcgmGpuField, string]>) {
    for (const s of samples) {
      const gpu = s.labels.gpu;
      // One series per GPU; a second one for the same GPU (another label set) keeps the first.
      if (s.name !== name || gpu === undefined || !GPU_INDEX_RE.test(gpu) || Number.isNaN(s.value))
        continue;
      const key = dcgmGpuKey(gpu, field);
      if (!(key in out)) out[key] = s.value;
    }
  }
  return out;
}
