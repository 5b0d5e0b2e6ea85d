/**
 * Test helpers: SGLang-format exposition text (as `sglang:` metrics from
 * python/sglang/srt/metrics/collector.py render it through prometheus_client) from a small state,
 * for unit tests, the end-to-end scrape test's HTTP server and the Playwright spec.
 */

/** TTFT/E2E bucket bounds in seconds, as SGLang's collector defines them for TTFT. */
export const SGLANG_TTFT_BOUNDS_S = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 20, 25,
  30,
];

/** What one SGLang scheduler rank reports. Histogram observations are per bucket (not cumulative). */
export interface SglangRankState {
  dpRank?: number;
  running: number;
  queued: number;
  tokenUsage: number;
  genThroughput: number;
  promptTokens: number;
  generationTokens: number;
  /** Observations per bucket of {@link SGLANG_TTFT_BOUNDS_S}, plus one last entry for > 30 s. */
  ttftPerBucket: number[];
  acceptLength?: number;
}

/** Renders ranks as one exposition text (one series per rank, `dp_rank` label when set). */
export function sglangExposition(
  ranks: SglangRankState[],
  model = "meta-llama/Llama-3.1-8B-Instruct",
): string {
  const out: string[] = [];
  const labels = (r: SglangRankState, extra = "") =>
    `{${extra}model_name="${model}"${r.dpRank === undefined ? "" : `,dp_rank="${r.dpRank}"`}}`;
  const family = (
    name: string,
    type: string,
    value: (r: SglangRankState) => number | undefined,
  ) => {
    out.push(`# HELP ${name} ${name}`, `# TYPE ${name} ${type}`);
    for (const r of ranks) {
      const v = value(r);
      if (v !== undefined) out.push(`${name}${labels(r)} ${formatFloat(v)}`);
    }
  };
  family("sglang:prompt_tokens_total", "counter", (r) => r.promptTokens);
  family("sglang:generation_tokens_total", "counter", (r) => r.generationTokens);
  family("sglang:token_usage", "gauge", (r) => r.tokenUsage);
  out.push(
    "# HELP sglang:time_to_first_token_seconds ttft",
    "# TYPE sglang:time_to_first_token_seconds histogram",
  );
  for (const r of ranks) {
    let cum = 0;
    const bounds = [...SGLANG_TTFT_BOUNDS_S.map(String), "+Inf"];
    let sum = 0;
    bounds.forEach((le, i) => {
      cum += r.ttftPerBucket[i] ?? 0;
      sum += (r.ttftPerBucket[i] ?? 0) * (SGLANG_TTFT_BOUNDS_S[i] ?? 40);
      out.push(
        `sglang:time_to_first_token_seconds_bucket${labels(r, `le="${le === "+Inf" ? le : formatFloat(Number(le))}",`)} ${formatFloat(cum)}`,
      );
    });
    out.push(`sglang:time_to_first_token_seconds_sum${labels(r)} ${formatFloat(sum)}`);
    out.push(`sglang:time_to_first_token_seconds_count${labels(r)} ${formatFloat(cum)}`);
  }
  family("sglang:num_running_reqs", "gauge", (r) => r.running);
  family("sglang:gen_throughput", "gauge", (r) => r.genThroughput);
  family("sglang:num_queue_reqs", "gauge", (r) => r.queued);
  family("sglang:spec_accept_length", "gauge", (r) => r.acceptLength);
  return out.join("\n") + "\n";
}

/** Python repr of a float as prometheus_client writes it (`3.0`, `1.5e+06`). */
function formatFloat(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
  return String(v);
}
