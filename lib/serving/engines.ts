/**
 * Metric names of the serving engines Pitwall scrapes, per test/fixtures/prometheus-metrics/
 * SCHEMA.md: SGLang (python/sglang/srt/metrics/collector.py, `--enable-metrics`; ITL histogram
 * named `inter_token_latency_seconds` in newer versions, `time_per_output_token_seconds` before)
 * and vLLM V1 (`kv_cache_usage_perc`, older `gpu_cache_usage_perc`; ITL likewise). Where a
 * version has two names the first present wins.
 */
export interface EngineMetricNames {
  engine: "sglang" | "vllm";
  running: string;
  queued: string;
  kvUsage: string[];
  /** The engine's own generation throughput gauge (tok/s), where it has one. */
  genThroughput?: string;
  promptTokens: string;
  generationTokens: string;
  ttft: string;
  itl: string[];
  e2e: string;
  /** SGLang: mean accepted length per verify step (incl. the bonus token), a gauge. */
  acceptLengthGauge?: string;
  /** vLLM: speculative decoding counters. */
  specDrafts?: string;
  specAccepted?: string;
  specAcceptedPerPos?: string;
}

export const SGLANG_METRICS: EngineMetricNames = {
  engine: "sglang",
  running: "sglang:num_running_reqs",
  queued: "sglang:num_queue_reqs",
  kvUsage: ["sglang:token_usage"],
  genThroughput: "sglang:gen_throughput",
  promptTokens: "sglang:prompt_tokens_total",
  generationTokens: "sglang:generation_tokens_total",
  ttft: "sglang:time_to_first_token_seconds",
  itl: ["sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"],
  e2e: "sglang:e2e_request_latency_seconds",
  acceptLengthGauge: "sglang:spec_accept_length",
};

export const VLLM_METRICS: EngineMetricNames = {
  engine: "vllm",
  running: "vllm:num_requests_running",
  queued: "vllm:num_requests_waiting",
  kvUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
  promptTokens: "vllm:prompt_tokens_total",
  generationTokens: "vllm:generation_tokens_total",
  ttft: "vllm:time_to_first_token_seconds",
  itl: ["vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"],
  e2e: "vllm:e2e_request_latency_seconds",
  specDrafts: "vllm:spec_decode_num_drafts_total",
  specAccepted: "vllm:spec_decode_num_accepted_tokens_total",
  specAcceptedPerPos: "vllm:spec_decode_num_accepted_tokens_per_pos_total",
};

/** The engine whose metrics a scrape holds (by name prefix); null for neither. */
export function detectEngine(names: Iterable<string>): EngineMetricNames | null {
  for (const n of names) {
    if (n.startsWith("sglang:")) return SGLANG_METRICS;
    if (n.startsWith("vllm:")) return VLLM_METRICS;
  }
  return null;
}
