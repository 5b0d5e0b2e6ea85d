import { describe, expect, it } from "vitest";

import { formatMetricReading, metricLabel, metricTitle } from "./metric-labels";
import { SERVING_KEYS } from "./serving/derive";

describe("metric labels", () => {
  it("gives every serving key a label without the raw name", () => {
    for (const key of Object.values(SERVING_KEYS)) {
      expect(metricLabel(key).label).not.toContain("serving/");
      expect(formatMetricReading(key, 1)).not.toContain("serving/");
    }
  });

  it("reads with units: tok/s, %, ms", () => {
    expect(formatMetricReading("serving/generation_tok_per_s", 557.8)).toBe("Output 557.8 tok/s");
    expect(formatMetricReading("serving/generation_tok_per_s", 941)).toBe("Output 941.0 tok/s");
    expect(formatMetricReading("serving/kv_cache_usage", 0.5)).toBe("KV cache 50.0%");
    expect(formatMetricReading("serving/ttft_ms_p50", 85.72)).toBe("TTFT p50 85.7 ms");
    expect(formatMetricReading("serving/ttft_ms_p50", 0)).toBe("TTFT p50 0 ms");
    expect(metricTitle("serving/generation_tok_per_s")).toBe("Output tok/s");
    expect(metricTitle("serving/kv_cache_usage")).toBe("KV cache (%)");
  });

  it("reads a worker's own key by its unit suffix, the suffix out of the label", () => {
    expect(formatMetricReading("prompts_per_s", 0.195)).toBe("prompts 0.195/s");
    expect(metricTitle("prompts_per_s")).toBe("prompts/s");
    expect(formatMetricReading("train/step_time_ms", 12.3)).toBe("train/step time 12.3 ms");
    expect(formatMetricReading("decode_tok_per_s", 41.5)).toBe("decode 41.5 tok/s");
    expect(metricTitle("gpu_util_pct")).toBe("gpu util (%)");
    // A bare suffix is a name, not a unit.
    expect(metricLabel("_ms")).toEqual({ label: "_ms", unit: null });
  });

  it("keeps unknown keys and non-finite values as they are", () => {
    expect(formatMetricReading("loss", 0.984)).toBe("loss 0.984");
    expect(formatMetricReading("serving/generation_tok_per_s", Number.NaN)).toBe("Output NaN");
    expect(metricTitle("train/loss")).toBe("train/loss");
  });
});
