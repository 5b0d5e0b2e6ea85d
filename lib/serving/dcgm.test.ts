import { describe, expect, test } from "vitest";

import { DCGM_KEYS, dcgmGpuKey, deriveDcgmValues, parseDcgmGpuKey } from "./dcgm";
import { parseExposition } from "./exposition";

/** Two GPUs as dcgm-exporter 3.x writes them (default counters CSV; labels gpu, UUID, device, modelName, Hostname). */
const TWO_GPUS = `# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a01",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 61
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a02",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 48
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a01",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 512.25
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a02",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 98.5
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a01",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 97
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a02",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 0
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a01",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 74213
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-6f1c2a55-0d5e-1c2b-8a7e-3f0b6f6e1a02",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 1
`;

describe("deriveDcgmValues", () => {
  test("host totals and one value per GPU and field", () => {
    const v = deriveDcgmValues(parseExposition(TWO_GPUS).samples);
    expect(v[DCGM_KEYS.gpuUtilPct]).toBe(48.5);
    expect(v[DCGM_KEYS.gpuMemUsedMiB]).toBe(74214);
    expect(v[DCGM_KEYS.gpuPowerW]).toBe(610.75);
    expect(v[DCGM_KEYS.gpuTempC]).toBe(61);
    expect(v["serving/gpu/0/util_pct"]).toBe(97);
    expect(v["serving/gpu/1/util_pct"]).toBe(0);
    expect(v["serving/gpu/0/mem_used_mib"]).toBe(74213);
    expect(v["serving/gpu/1/power_w"]).toBe(98.5);
    expect(v["serving/gpu/1/temp_c"]).toBe(48);
    expect(Object.keys(v)).toHaveLength(4 + 8);
  });

  test("fields the exporter does not serve, NaN and odd gpu labels are left out", () => {
    const text = [
      'DCGM_FI_DEV_GPU_UTIL{gpu="0"} NaN',
      'DCGM_FI_DEV_GPU_UTIL{gpu="1"} 40',
      'DCGM_FI_DEV_GPU_UTIL{gpu="../x"} 50',
      "DCGM_FI_DEV_GPU_UTIL 60",
    ].join("\n");
    const v = deriveDcgmValues(parseExposition(text).samples);
    expect(v).toEqual({ [DCGM_KEYS.gpuUtilPct]: 50, "serving/gpu/1/util_pct": 40 });
  });

  test("per-GPU keys round-trip; other keys are not GPU keys", () => {
    expect(parseDcgmGpuKey(dcgmGpuKey("3", "power_w"))).toEqual({ gpu: "3", field: "power_w" });
    expect(parseDcgmGpuKey(DCGM_KEYS.gpuPowerW)).toBeNull();
    expect(parseDcgmGpuKey("serving/gpu/3/fan")).toBeNull();
  });
});
