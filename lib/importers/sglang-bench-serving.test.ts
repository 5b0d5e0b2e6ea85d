import { describe, expect, test } from "vitest";

import { detectFormat, importBenchmarkFiles } from "./index";
import { summariseServerInfo } from "./sglang-bench-serving";
import {
  at,
  endOf,
  expectValidFrames,
  fixture,
  fixtureFiles,
  onlyRun,
  pointsOf,
  pyJson,
  startOf,
  testdata,
} from "./testing";

const FOLDER = "sglang-bench-serving";
const LLAMA = "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl";
const DEEPSEEK = "datacrunch_2024-12_deepseek_dp_mla_output.jsonl";

describe("SGLang bench_serving fixtures", () => {
  test("every fixture file imports as one sglang run with one valid point per line", () => {
    const files = fixtureFiles(FOLDER);
    expect(files.map((f) => f.path.split("/").pop())).toEqual(
      expect.arrayContaining([LLAMA, DEEPSEEK]),
    );
    for (const file of files) {
      expect(detectFormat(file.text)).toBe("sglang-bench-serving");
      const result = importBenchmarkFiles([file]);
      expect(result.problems).toEqual([]);
      const run = onlyRun(result);
      expect(run.format).toBe("sglang-bench-serving");
      const lines = file.text.split("\n").filter((l) => l.trim() !== "");
      expect(run.pointCount).toBe(lines.length);
      expect(pointsOf(run)).toHaveLength(lines.length);
      expectValidFrames(run.frames);
      expect(run.frames[0]?.type).toBe("run.start");
      expect(endOf(run).status).toBe("succeeded");
    }
  });

  test("llama 3.3 70B sweep: 7 lines, request-rate levels, medians, sharegpt lengths", () => {
    const run = onlyRun(importBenchmarkFiles([fixture(FOLDER, LLAMA)]));
    const points = pointsOf(run);
    expect(run.pointCount).toBe(7);
    expect(run.name).toBe(LLAMA);
    // Largest output_throughput in the file is the request_rate 16 line (line 5).
    expect(Math.max(...points.map((p) => Number(p.outputTokPerS ?? 0)))).toBe(4288.049348197696);
    expect(points.map((p) => p.requestRate)).toEqual([1, 2, 4, 8, 16, 4, 8]);
    expect(points.map((p) => p.dataset)).toEqual([
      "random",
      "random",
      "random",
      "random",
      "random",
      "sharegpt",
      "sharegpt",
    ]);
    expect(points.map((p) => p.ord)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const first = at(points, 0);
    expect(first.concurrency).toBeNull();
    expect(first.requestRateUnbounded).toBeUndefined();
    expect(first.completed).toBe(300);
    expect(first.durationS).toBe(298.3675805060193);
    expect(first.outputTokPerS).toBe(537.4142851849319);
    expect(first.ttftMsMedian).toBe(85.74514742940664);
    expect(first.itlMsMedian).toBe(13.638956006616354);
    expect(first.e2eMsMean).toBe(7840.616212638561);
    // The late-2024 writer has no mean/p99 TTFT, TPOT or request/total throughput keys.
    expect(first.ttftMsMean).toBeNull();
    expect(first.ttftMsP99).toBeNull();
    expect(first.tpotMsMedian).toBeNull();
    expect(first.acceptLength).toBeNull();
    expect(first.measuredConcurrency).toBeNull();
    // ... so request and total throughput are derived with the writer's own formulas.
    expect(first.requestThroughput).toBeCloseTo(300 / 298.3675805060193, 12);
    expect(first.totalTokPerS).toBeCloseTo((152612 + 160347) / 298.3675805060193, 9);
    // random dataset: configured lengths (the sweep level), not the means.
    expect(first.inputLen).toBe(1024);
    expect(first.outputLen).toBe(1024);

    // sharegpt lines echo random_input_len=1024 although unused: lengths are the means instead.
    const sharegpt = at(points, 5);
    expect(sharegpt.inputLen).toBe(Math.round(269081 / 1200));
    expect(sharegpt.outputLen).toBe(Math.round(226901 / 1200));
    expect(sharegpt.outputTokPerS).toBe(746.0750970739618);
    expect(sharegpt.ttftMsMedian).toBe(68.27884959056973);

    const start = startOf(run);
    expect(start.kind).toBe("benchmark");
    expect(start.startedAt).toBeUndefined();
    expect(start.config).toMatchObject({
      format: "sglang-bench-serving",
      backend: "sglang",
      engine: "sglang",
      model: null,
      dataset: ["random", "sharegpt"],
      sourceFiles: [LLAMA],
    });
    // Lengths differ across lines, so the run config has none.
    expect(start.config).not.toHaveProperty("inputLen");
    expect(at(points, 0).raw).toMatchObject({
      request_rate: 1,
      total_output_tokens_retokenized: 160192,
      random_range_ratio: 0,
    });
  });

  test("deepseek DP MLA: one line with a bare Infinity request rate", () => {
    const run = onlyRun(importBenchmarkFiles([fixture(FOLDER, DEEPSEEK)]));
    expect(run.pointCount).toBe(1);
    const p = at(pointsOf(run), 0);
    expect(p.requestRate).toBeNull();
    expect(p.requestRateUnbounded).toBe(true);
    expect(p.raw?.request_rate).toBe(Number.POSITIVE_INFINITY);
    expect(p.completed).toBe(10000);
    expect(p.outputTokPerS).toBe(12412.394674113431);
    expect(p.ttftMsMedian).toBe(10014.104524045251);
    expect(p.inputLen).toBe(1);
    expect(p.outputLen).toBe(512);
    expect(startOf(run).config).toMatchObject({
      inputLen: 1,
      outputLen: 512,
      dataset: "random",
      randomRangeRatio: 1,
    });
  });
});

const SERVER_INFO = {
  model_path: "Qwen/Qwen3.6-27B",
  tokenizer_path: "Qwen/Qwen3.6-27B",
  served_model_name: "qwen3.6-27b",
  tp_size: 2,
  dp_size: 1,
  mem_fraction_static: 0.88,
  speculative_algorithm: "NEXTN",
  speculative_num_steps: 3,
  speculative_eagle_topk: 1,
  speculative_num_draft_tokens: 4,
  quantization: null,
  json_model_override_args: "{}",
  enable_metrics: true,
  cuda_graph_bs: Array.from({ length: 300 }, (_, i) => i + 1),
  internal_states: [
    {
      avg_spec_accept_length: 3.21,
      last_gen_throughput: 612.4,
      memory_usage: { weight: 27.1, kvcache: 12.5 },
    },
  ],
  version: "0.5.11",
};

/** A 2025+ writer row (std/p99/p90 stats, concurrency, accept_length, total_throughput, tag, server_info). */
const row2025 = {
  tag: "qwen-mtp",
  backend: "sglang-oai",
  dataset_name: "random",
  request_rate: Number.POSITIVE_INFINITY,
  max_concurrency: 32,
  sharegpt_output_len: null,
  random_input_len: 1000,
  random_output_len: 1000,
  random_range_ratio: 1.0,
  server_info: SERVER_INFO,
  duration: 55.4,
  completed: 320,
  total_input_tokens: 320000,
  total_input_text_tokens: 320000,
  total_input_vision_tokens: 0,
  total_output_tokens: 320000,
  total_output_tokens_retokenized: 319990,
  request_throughput: 5.776,
  input_throughput: 5776.17,
  output_throughput: 5776.17,
  total_throughput: 11552.34,
  mean_e2e_latency_ms: 5500.1,
  median_e2e_latency_ms: 5400.2,
  std_e2e_latency_ms: 300.3,
  p90_e2e_latency_ms: 5900.0,
  p99_e2e_latency_ms: 6100.4,
  mean_ttft_ms: 120.5,
  median_ttft_ms: 110.6,
  std_ttft_ms: 20.7,
  p99_ttft_ms: 250.8,
  mean_tpot_ms: 5.39,
  median_tpot_ms: 5.31,
  std_tpot_ms: 0.4,
  p99_tpot_ms: 6.7,
  mean_itl_ms: 16.2,
  median_itl_ms: 15.9,
  std_itl_ms: 3.1,
  p95_itl_ms: 30.1,
  p99_itl_ms: 45.3,
  concurrency: 31.7,
  accept_length: 3.21,
  max_output_tokens_per_s: 6400.0,
  max_concurrent_requests: 32,
};

/** Mooncake trace replay, non-streaming (TTFT/TPOT/ITL written as 0.0), with top-level --output-details. */
const rowTrace = {
  ...row2025,
  tag: "qwen-mtp",
  dataset_name: "mooncake",
  request_rate: "trace",
  max_concurrency: null,
  completed: 4,
  total_input_tokens: 4 * 7001,
  total_output_tokens: 4 * 250,
  mean_ttft_ms: 0.0,
  median_ttft_ms: 0.0,
  std_ttft_ms: 0.0,
  p99_ttft_ms: 0.0,
  mean_tpot_ms: 0.0,
  median_tpot_ms: 0.0,
  std_tpot_ms: 0.0,
  p99_tpot_ms: 0.0,
  mean_itl_ms: 0.0,
  median_itl_ms: 0.0,
  std_itl_ms: 0.0,
  p95_itl_ms: 0.0,
  p99_itl_ms: 0.0,
  std_e2e_latency_ms: Number.NaN,
  accept_length: null,
  input_lens: [7001, 7001, 7001, 7001, 7001],
  output_lens: [250, 250, 250, 250, 0],
  ttfts: [0.0, 0.0, 0.0, 0.0, 0.0],
  itls: [[], [], [], [], []],
  generated_texts: ["a", "b", "c", "d", ""],
  errors: ["", "", "", "", "Traceback: ConnectionResetError"],
};

/** Every request failed (completed 0): SGLang itself would not write this, but it must still import. */
const rowAllFailed = {
  ...row2025,
  request_rate: 64.0,
  max_concurrency: 1024,
  completed: 0,
  total_input_tokens: 0,
  total_output_tokens: 0,
  request_throughput: 0.0,
  input_throughput: 0.0,
  output_throughput: 0.0,
  total_throughput: 0.0,
  mean_e2e_latency_ms: Number.NaN,
  mean_ttft_ms: 0.0,
  concurrency: 0.0,
};

describe("SGLang 2025+ writer (synthetic)", () => {
  const text = [row2025, rowTrace, rowAllFailed].map(pyJson).join("\n") + "\n";
  const result = importBenchmarkFiles([{ path: "/bench/sglang_0112_320_1000_1000.jsonl", text }], {
    host: "kpro5",
    tags: ["mtp"],
  });
  const run = onlyRun(result);
  const points = pointsOf(run);

  test("the text really has bare Infinity/NaN tokens and is detected", () => {
    expect(text).toContain('"request_rate": Infinity');
    expect(text).toContain('"std_e2e_latency_ms": NaN');
    expect(detectFormat(text)).toBe("sglang-bench-serving");
    expect(result.problems).toEqual([]);
    expectValidFrames(run.frames);
  });

  test("bounded concurrency, unbounded rate, τ, p99 and measured concurrency", () => {
    const p = at(points, 0);
    expect(p.concurrency).toBe(32);
    expect(p.requestRate).toBeNull();
    expect(p.requestRateUnbounded).toBe(true);
    expect(p.measuredConcurrency).toBe(31.7);
    expect(p.acceptLength).toBe(3.21);
    expect(p.ttftMsMean).toBe(120.5);
    expect(p.ttftMsP99).toBe(250.8);
    expect(p.tpotMsP99).toBe(6.7);
    expect(p.itlMsP99).toBe(45.3);
    expect(p.e2eMsP99).toBe(6100.4);
    expect(p.totalTokPerS).toBe(11552.34);
    expect(p.requestThroughput).toBe(5.776);
    expect(p.inputLen).toBe(1000);
    expect(p.outputLen).toBe(1000);
    expect(p.failed).toBeNull();
  });

  test("raw keeps the row but replaces server_info by a short summary", () => {
    const raw = at(points, 0).raw ?? {};
    expect(raw.server_info).toEqual({
      version: "0.5.11",
      model_path: "Qwen/Qwen3.6-27B",
      served_model_name: "qwen3.6-27b",
      tokenizer_path: "Qwen/Qwen3.6-27B",
      tp_size: 2,
      dp_size: 1,
      speculative_algorithm: "NEXTN",
      speculative_num_steps: 3,
      speculative_eagle_topk: 1,
      speculative_num_draft_tokens: 4,
      mem_fraction_static: 0.88,
      avg_spec_accept_length: 3.21,
    });
    expect(raw.p90_e2e_latency_ms).toBe(5900.0);
    expect(raw.max_output_tokens_per_s).toBe(6400.0);
    expect(raw.tag).toBe("qwen-mtp");
  });

  test("trace replay: rate null with the raw value kept; 0.0 TTFT/TPOT/ITL are null; details dropped", () => {
    const p = at(points, 1);
    expect(p.requestRate).toBeNull();
    expect(p.requestRateUnbounded).toBeUndefined();
    expect(p.raw?.request_rate).toBe("trace");
    expect(p.concurrency).toBeNull();
    expect([
      p.ttftMsMean,
      p.ttftMsMedian,
      p.ttftMsP99,
      p.tpotMsMean,
      p.tpotMsMedian,
      p.tpotMsP99,
      p.itlMsMean,
      p.itlMsMedian,
      p.itlMsP99,
    ]).toEqual(Array(9).fill(null));
    expect(p.e2eMsMean).toBe(5500.1);
    // mooncake: no configured lengths, so the means per completed request.
    expect(p.inputLen).toBe(7001);
    expect(p.outputLen).toBe(250);
    // The errors array counts the failed request.
    expect(p.completed).toBe(4);
    expect(p.failed).toBe(1);
    for (const key of ["input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"])
      expect(p.raw).not.toHaveProperty(key);
    // Non-finite numbers survive in raw.
    expect(Number.isNaN(p.raw?.std_e2e_latency_ms)).toBe(true);
    expect(p.acceptLength).toBeNull();
  });

  test("completed 0 is still a point, with nulls instead of 0 tok/s", () => {
    const p = at(points, 2);
    expect(p.completed).toBe(0);
    expect(p.concurrency).toBe(1024);
    expect(p.requestRate).toBe(64);
    expect(p.durationS).toBe(55.4);
    for (const v of [
      p.outputTokPerS,
      p.totalTokPerS,
      p.requestThroughput,
      p.ttftMsMean,
      p.e2eMsMean,
      p.e2eMsP99,
      p.measuredConcurrency,
      p.acceptLength,
    ]) {
      expect(v).toBeNull();
    }
    expect(p.raw?.output_throughput).toBe(0);
  });

  test("run config: model and version from server_info, never the whole blob", () => {
    const start = startOf(run);
    expect(start.host).toBe("kpro5");
    expect(start.tags).toEqual(["mtp"]);
    expect(start.config).toMatchObject({
      model: "Qwen/Qwen3.6-27B",
      tokenizer: "Qwen/Qwen3.6-27B",
      engine: "sglang",
      engineVersion: "0.5.11",
      backend: "sglang-oai",
      tag: "qwen-mtp",
      server: { tp_size: 2, speculative_algorithm: "NEXTN" },
    });
    expect(JSON.stringify(start.config)).not.toContain("cuda_graph_bs");
    expect(JSON.stringify(start.config)).not.toContain("internal_states");
    expect(endOf(run).status).toBe("succeeded");
  });
});

describe("SGLang refactor variant (benchmark/metrics.py save_results)", () => {
  const n = 1000;
  const row = {
    backend: "sglang",
    dataset_name: "sharegpt",
    request_rate: 8.0,
    max_concurrency: 64,
    sharegpt_output_len: null,
    random_input_len: 1024,
    random_output_len: 1024,
    random_range_ratio: 0.0,
    duration: 100.0,
    completed: 990,
    total_input: 220000,
    total_output: 190000,
    total_output_retokenized: 189000,
    request_throughput: 9.9,
    input_throughput: 2200.0,
    output_throughput: 1900.0,
    output_throughput_retokenized: 1890.0,
    total_throughput: 4100.0,
    total_throughput_retokenized: 4090.0,
    mean_ttft_ms: 95.5,
    median_ttft_ms: 80.1,
    std_ttft_ms: 30.2,
    p99_ttft_ms: 300.9,
    mean_tpot_ms: 20.1,
    median_tpot_ms: 19.9,
    std_tpot_ms: 2.2,
    p99_tpot_ms: 28.3,
    mean_itl_ms: 20.4,
    median_itl_ms: 18.8,
    std_itl_ms: 6.6,
    p95_itl_ms: 33.3,
    p99_itl_ms: 55.5,
    max_itl_ms: 480.0,
    mean_e2e_latency_ms: 3900.0,
    median_e2e_latency_ms: 3100.0,
    std_e2e_latency_ms: 2500.0,
    p99_e2e_latency_ms: 12000.0,
    concurrency: 60.2,
    accept_length: null,
    details: {
      input_lens: Array.from({ length: n }, () => 222),
      output_lens: Array.from({ length: n }, (_, i) => (i < 10 ? 0 : 192)),
      ttfts: Array.from({ length: n }, (_, i) => (i < 10 ? 0 : 0.0801)),
      itls: Array.from({ length: n }, () => [0.0188, 0.0191]),
      generated_texts: Array.from({ length: n }, () => "text"),
      errors: Array.from({ length: n }, (_, i) => (i < 10 ? "HTTP 503" : "")),
    },
  };
  const text = pyJson(row) + "\n";

  test("renamed totals and nested details are understood", () => {
    expect(detectFormat(text)).toBe("sglang-bench-serving");
    const result = importBenchmarkFiles([{ path: "sglang_0112_1000_sharegpt.jsonl", text }]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 0);
    expect(p.inputLen).toBe(Math.round(220000 / 990));
    expect(p.outputLen).toBe(Math.round(190000 / 990));
    expect(p.failed).toBe(10);
    expect(p.concurrency).toBe(64);
    expect(p.requestRate).toBe(8);
    expect(p.outputTokPerS).toBe(1900);
    expect(p.totalTokPerS).toBe(4100);
    expect(p.ttftMsMean).toBe(95.5);
    expect(p.measuredConcurrency).toBe(60.2);
    expect(p.acceptLength).toBeNull();
    expect(p.raw).not.toHaveProperty("details");
    expect(p.raw).toMatchObject({
      total_input: 220000,
      max_itl_ms: 480,
      output_throughput_retokenized: 1890,
    });
    expect(startOf(run).config).toMatchObject({
      engine: "sglang",
      dataset: "sharegpt",
      model: null,
    });
  });
});

describe("summariseServerInfo", () => {
  test("PD disaggregation: summarises the first decode server", () => {
    const summary = summariseServerInfo({
      prefill: [{ ...SERVER_INFO, tp_size: 4, disaggregation_mode: "prefill" }],
      decode: [
        {
          ...SERVER_INFO,
          tp_size: 8,
          disaggregation_mode: "decode",
          internal_states: [{ avg_spec_accept_length: 2.5 }],
        },
      ],
    });
    expect(summary).toMatchObject({
      tp_size: 8,
      disaggregation_mode: "decode",
      avg_spec_accept_length: 2.5,
      role: "decode",
    });
  });

  test("PD disaggregation file: the prefill and the decode server are both in the run config", () => {
    // testdata: two bench_serving lines against SGLang's PD load balancer (1 prefill TP8 on fa3
    // 0.4.9.post2, 1 decode TP16 on flashmla 0.4.9.post3, mooncake transfer); `server_info` is the
    // balancer's {internal_states, prefill: [...], decode: [...]}.
    const run = onlyRun(
      importBenchmarkFiles([testdata("sglang-pd/pd_1p1d_random_2000_1500.jsonl")]),
    );
    expectValidFrames(run.frames);
    expect(run.pointCount).toBe(2);
    const config = startOf(run).config as {
      server: Record<string, unknown>;
      engineVersion: unknown;
    };
    expect(config.engineVersion).toBe("0.4.9.post3");
    expect(config.server).toMatchObject({
      role: "decode",
      version: "0.4.9.post3",
      tp_size: 16,
      attention_backend: "flashmla",
      disaggregation_mode: "decode",
      disaggregation_transfer_backend: "mooncake",
      prefill: {
        role: "prefill",
        version: "0.4.9.post2",
        tp_size: 8,
        attention_backend: "fa3",
        disaggregation_mode: "prefill",
        disaggregation_transfer_backend: "mooncake",
      },
    });
    expect(config.server).not.toHaveProperty("prefillServers");
    expect(at(pointsOf(run), 0).raw).toMatchObject({
      server_info: { prefill: { version: "0.4.9.post2" } },
    });
  });

  test("PD balancer info: decode τ falls back to the balancer's internal_states; server counts", () => {
    const { internal_states: _states, ...withoutStates } = SERVER_INFO;
    const summary = summariseServerInfo({
      internal_states: [{ avg_spec_accept_length: 3.1 }],
      prefill: [
        { ...SERVER_INFO, version: "a" },
        { ...SERVER_INFO, version: "a" },
      ],
      decode: [{ ...withoutStates, version: "b" }],
    });
    expect(summary).toMatchObject({
      version: "b",
      avg_spec_accept_length: 3.1,
      prefill: { version: "a", role: "prefill" },
      prefillServers: 2,
    });
    expect(summary).not.toHaveProperty("decodeServers");
  });

  test("not an object → null", () => {
    expect(summariseServerInfo(null)).toBeNull();
    expect(summariseServerInfo("x")).toBeNull();
  });
});
