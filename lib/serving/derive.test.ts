import { describe, expect, it } from "vitest";

import { deriveServingReading, SERVING_KEYS as K } from "./derive";
import { parseExposition } from "./exposition";
import type { ScrapeSnapshot } from "./series";
import { sglangExposition, type SglangRankState } from "./testing";

const snap = (tsMs: number, text: string): ScrapeSnapshot => ({
  tsMs,
  samples: parseExposition(text).samples,
});
const buckets = (entries: Record<number, number>) =>
  Array.from({ length: 21 }, (_, i) => entries[i] ?? 0);
const rank = (over: Partial<SglangRankState>): SglangRankState => ({
  running: 0,
  queued: 0,
  tokenUsage: 0,
  genThroughput: 0,
  promptTokens: 0,
  generationTokens: 0,
  ttftPerBucket: buckets({}),
  ...over,
});

describe("deriveServingReading (SGLang, two DP ranks)", () => {
  // Rank 1 restarted between the scrapes: its counters and histogram start again from 0.
  const prev = snap(
    1_000_000,
    sglangExposition([
      rank({
        dpRank: 0,
        promptTokens: 1000,
        generationTokens: 5000,
        ttftPerBucket: buckets({ 8: 10 }),
      }),
      rank({
        dpRank: 1,
        promptTokens: 800_000,
        generationTokens: 900_000,
        ttftPerBucket: buckets({ 15: 1000 }),
      }),
    ]),
  );
  const cur = snap(
    1_010_000,
    sglangExposition([
      rank({
        dpRank: 0,
        running: 8,
        queued: 0,
        tokenUsage: 0.5,
        genThroughput: 300,
        promptTokens: 3000,
        generationTokens: 9000,
        ttftPerBucket: buckets({ 8: 60, 12: 50 }),
        acceptLength: 3.2,
      }),
      rank({
        dpRank: 1,
        running: 4,
        queued: 3,
        tokenUsage: 0.9,
        genThroughput: 150,
        promptTokens: 500,
        generationTokens: 1000,
        acceptLength: NaN,
      }),
    ]),
  );

  it("sums requests and tok/s over ranks, averages KV usage and accept length (NaN skipped)", () => {
    const r = deriveServingReading(prev, cur);
    expect(r.engine).toBe("sglang");
    expect(r.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(r.values[K.up]).toBe(1);
    expect(r.values[K.runningRequests]).toBe(12);
    expect(r.values[K.queuedRequests]).toBe(3);
    expect(r.values[K.kvCacheUsage]).toBeCloseTo(0.7, 12);
    expect(r.values[K.genTokPerS]).toBe(450);
    expect(r.values[K.acceptLength]).toBeCloseTo(3.2, 12);
  });

  it("takes token rates from counter increases, counting a reset rank's value as its increase", () => {
    const r = deriveServingReading(prev, cur);
    expect(r.values[K.promptTokPerS]).toBeCloseTo((2000 + 500) / 10, 9);
    expect(r.values[K.generationTokPerS]).toBeCloseTo((4000 + 1000) / 10, 9);
  });

  it("computes window TTFT p50/p99 from bucket increases (hand computation)", () => {
    // Window: rank 0 added 50 in (0.1, 0.25] s and 50 in (1, 2.5] s; rank 1 reset with none.
    // p50: rank 50 ends the (0.1, 0.25] bucket -> 0.25 s. p99: rank 99 is 49 of 50 into (1, 2.5].
    const r = deriveServingReading(prev, cur);
    expect(r.values[K.ttftMsP50]).toBeCloseTo(250, 9);
    expect(r.values[K.ttftMsP99]).toBeCloseTo((1 + 1.5 * (49 / 50)) * 1000, 9);
  });

  it("gives gauges only on the first scrape, and no latency for a window without requests", () => {
    const first = deriveServingReading(null, cur);
    expect(first.values[K.runningRequests]).toBe(12);
    expect(first.values[K.promptTokPerS]).toBeUndefined();
    expect(first.values[K.ttftMsP99]).toBeUndefined();
    const idle = deriveServingReading(cur, { ...cur, tsMs: cur.tsMs + 5000 });
    expect(idle.values[K.ttftMsP99]).toBeUndefined();
    expect(idle.values[K.promptTokPerS]).toBe(0);
  });

  it("leaves out keys whose series are missing, never zero-filling them", () => {
    const without = (text: string, name: string) =>
      text
        .split("\n")
        .filter((l) => !l.includes(name))
        .join("\n");
    const noGen = snap(
      1_010_000,
      without(
        sglangExposition([rank({ dpRank: 0, running: 1, promptTokens: 10 })]),
        "generation_tokens",
      ),
    );
    const prevOne = snap(1_000_000, sglangExposition([rank({ dpRank: 0, promptTokens: 0 })]));
    const r = deriveServingReading(prevOne, noGen);
    expect(r.values[K.generationTokPerS]).toBeUndefined();
    expect(r.values[K.promptTokPerS]).toBeCloseTo(1, 12);
    expect(r.values[K.acceptLength]).toBeUndefined();
    // A rank that appears in the second scrape has no baseline: its counters add nothing.
    const newRank = snap(
      1_010_000,
      sglangExposition([
        rank({ dpRank: 0, promptTokens: 10 }),
        rank({ dpRank: 1, promptTokens: 99_999 }),
      ]),
    );
    expect(deriveServingReading(prevOne, newRank).values[K.promptTokPerS]).toBeCloseTo(1, 12);
  });

  it("marks an exposition of neither engine as up without serving values", () => {
    const r = deriveServingReading(null, snap(0, "process_cpu_seconds_total 3\n"));
    expect(r).toEqual({ engine: null, model: null, values: { [K.up]: 1 } });
  });
});

describe("deriveServingReading (vLLM, two engines, speculative decoding)", () => {
  const vllm = (e0: number[], e1: number[]) =>
    [
      "# TYPE vllm:num_requests_running gauge",
      `vllm:num_requests_running{engine="0",model_name="m"} ${e0[0]}`,
      `vllm:num_requests_running{engine="1",model_name="m"} ${e1[0]}`,
      "# TYPE vllm:num_requests_waiting gauge",
      `vllm:num_requests_waiting{engine="0",model_name="m"} ${e0[1]}`,
      `vllm:num_requests_waiting{engine="1",model_name="m"} ${e1[1]}`,
      "# TYPE vllm:gpu_cache_usage_perc gauge",
      `vllm:gpu_cache_usage_perc{engine="0",model_name="m"} ${e0[2]}`,
      `vllm:gpu_cache_usage_perc{engine="1",model_name="m"} ${e1[2]}`,
      "# TYPE vllm:spec_decode_num_drafts_total counter",
      `vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} ${e0[3]}`,
      `vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} ${e1[3]}`,
      "# TYPE vllm:spec_decode_num_accepted_tokens_total counter",
      `vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} ${e0[4]}`,
      `vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} ${e1[4]}`,
      "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter",
      `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} ${e0[5]}`,
      `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} ${e0[6]}`,
      `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} ${e1[5]}`,
      `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="1"} ${e1[6]}`,
      "# TYPE vllm:e2e_request_latency_seconds histogram",
      `vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0",model_name="m"} ${e0[7]}`,
      `vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} ${e0[8]}`,
      `vllm:e2e_request_latency_seconds_bucket{engine="1",le="1.0",model_name="m"} ${e1[7]}`,
      `vllm:e2e_request_latency_seconds_bucket{engine="1",le="+Inf",model_name="m"} ${e1[8]}`,
    ].join("\n");
  const prev = snap(
    0,
    vllm([0, 0, 0.1, 100, 150, 90, 60, 0, 0], [0, 0, 0.1, 200, 300, 180, 120, 0, 0]),
  );
  const cur = snap(
    2000,
    vllm([5, 1, 0.2, 140, 214, 126, 88, 10, 10], [3, 0, 0.4, 260, 386, 234, 152, 0, 30]),
  );

  it("sums engines, reads the older KV-usage name, and derives accept length as 1 + Δaccepted / Δdrafts", () => {
    const r = deriveServingReading(prev, cur);
    expect(r.engine).toBe("vllm");
    expect(r.values[K.runningRequests]).toBe(8);
    expect(r.values[K.queuedRequests]).toBe(1);
    expect(r.values[K.kvCacheUsage]).toBeCloseTo(0.3, 12);
    expect(r.values[K.genTokPerS]).toBeUndefined();
    // Δdrafts 40 + 60 = 100, Δaccepted 64 + 86 = 150.
    expect(r.values[K.acceptLength]).toBeCloseTo(2.5, 12);
    expect(r.values["serving/accept_rate_pos/0"]).toBeCloseTo((36 + 54) / 100, 12);
    expect(r.values["serving/accept_rate_pos/1"]).toBeCloseTo((28 + 32) / 100, 12);
  });

  it("puts a rank in the +Inf bucket at the highest finite bound", () => {
    // 40 requests: 10 at ≤ 1 s, 30 above. p50 and p99 both land in +Inf -> 1 s.
    const r = deriveServingReading(prev, cur);
    expect(r.values[K.e2eMsP50]).toBe(1000);
    expect(r.values[K.e2eMsP99]).toBe(1000);
    expect(r.values[K.ttftMsP99]).toBeUndefined();
  });
});
