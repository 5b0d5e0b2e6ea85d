/**
 * Human labels and units for stored metric keys, so pages say "Output 557.8 tok/s" and never
 * "serving/generation_tok_per_s 557.8". Keys without an entry keep their name; one whose name
 * ends in a unit suffix gets that unit (`prompts_per_s` reads "prompts 0.195/s", `step_time_ms`
 * "step time 12.3 ms"); others (a training script's own `loss`, `lr`…) print the bare number.
 */

import { formatNumber } from "./format";

/** How one metric key is shown: a label, the unit after the number, a scale applied first (0..1 → %). */
export interface MetricLabel {
  label: string;
  unit: string | null;
  /** Multiplier applied before formatting (100 for a 0..1 fraction shown in %). */
  scale?: number;
  /** Fixed decimals; automatic precision when absent. */
  decimals?: number;
}

const LABELS: Record<string, MetricLabel> = {
  "serving/up": { label: "Up", unit: null, decimals: 0 },
  "serving/running_requests": { label: "Running", unit: "req", decimals: 0 },
  "serving/queued_requests": { label: "Queued", unit: "req", decimals: 0 },
  "serving/kv_cache_usage": { label: "KV cache", unit: "%", scale: 100, decimals: 1 },
  "serving/gen_tok_per_s": { label: "Engine gen", unit: "tok/s", decimals: 1 },
  "serving/prompt_tok_per_s": { label: "Prompt", unit: "tok/s", decimals: 1 },
  "serving/generation_tok_per_s": { label: "Output", unit: "tok/s", decimals: 1 },
  "serving/ttft_ms_p50": { label: "TTFT p50", unit: "ms" },
  "serving/ttft_ms_p99": { label: "TTFT p99", unit: "ms" },
  "serving/itl_ms_p50": { label: "ITL p50", unit: "ms" },
  "serving/itl_ms_p99": { label: "ITL p99", unit: "ms" },
  "serving/e2e_ms_p50": { label: "E2E p50", unit: "ms" },
  "serving/e2e_ms_p99": { label: "E2E p99", unit: "ms" },
  "serving/accept_length": { label: "Accept length τ", unit: null, decimals: 2 },
  tok_per_s: { label: "Output", unit: "tok/s", decimals: 1 },
};

/** Unit suffixes of metric names workers choose themselves, longest first: the unit each stands for. */
const SUFFIX_UNITS: ReadonlyArray<[suffix: string, unit: string]> = [
  ["_tok_per_s", "tok/s"],
  ["_per_s", "/s"],
  ["_ms", "ms"],
  ["_pct", "%"],
];

/**
 * The label and unit of metric `key`: a known key's, else the unit its name ends in (the suffix
 * dropped from the label, "_" read as a space: `prompts_per_s` → "prompts", "/s"), else the key
 * itself without unit.
 */
export function metricLabel(key: string): MetricLabel {
  const known = LABELS[key];
  if (known) return known;
  for (const [suffix, unit] of SUFFIX_UNITS)
    if (key.endsWith(suffix) && key.length > suffix.length)
      return { label: key.slice(0, -suffix.length).replaceAll("_", " "), unit };
  return { label: key, unit: null };
}

/** A header or axis title with the unit: "Output tok/s", "KV cache (%)", "loss". */
export function metricTitle(key: string): string {
  const m = metricLabel(key);
  if (!m.unit) return m.label;
  if (m.unit === "/s") return `${m.label}/s`;
  return m.unit === "tok/s" ? `${m.label} tok/s` : `${m.label} (${m.unit})`;
}

/** A value of metric `key` with its unit, scaled as shown: "557.8 tok/s", "45.0%", "0.195/s", "0.984". */
export function formatMetricValue(key: string, value: number): string {
  const m = metricLabel(key);
  const text = formatNumber(
    value * (m.scale ?? 1),
    Number.isFinite(value) ? m.decimals : undefined,
  );
  if (!m.unit || !Number.isFinite(value)) return text;
  return m.unit === "%" || m.unit === "/s" ? `${text}${m.unit}` : `${text} ${m.unit}`;
}

/** One metric's latest value with label and unit: "Output 557.8 tok/s", "KV cache 45.0%", "loss 0.984". */
export function formatMetricReading(key: string, value: number): string {
  return `${metricLabel(key).label} ${formatMetricValue(key, value)}`;
}
