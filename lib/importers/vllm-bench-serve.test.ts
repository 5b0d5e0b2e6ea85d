import { describe, expect, test } from "vitest";

import { detectFormat, importBenchmarkFiles } from "./index";
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
} from "./testing";
import { vllmMetadata } from "./vllm-bench-serve";

const FOLDER = "vllm-bench-serve";
const NERDALERT = "nerdalert_2025-05_benchmark_serving_results.jsonl";

describe("vLLM bench serve fixtures", () => {
  test("every fixture file imports as one vllm run with one valid point per line", () => {
    const files = fixtureFiles(FOLDER);
    expect(files.map((f) => f.path.split("/").pop())).toContain(NERDALERT);
    for (const file of files) {
      expect(detectFormat(file.text)).toBe("vllm-bench-serve");
      const result = importBenchmarkFiles([file]);
      expect(result.problems).toEqual([]);
      const run = onlyRun(result);
      expect(run.format).toBe("vllm-bench-serve");
      const lines = file.text.split("\n").filter((l) => l.trim() !== "");
      expect(run.pointCount).toBe(lines.length);
      expectValidFrames(run.frames);
      expect(endOf(run).status).toBe("succeeded");
    }
  });

  test("nerdalert: 9 results over 3 deployments × rates 10, 30, inf", () => {
    const run = onlyRun(importBenchmarkFiles([fixture(FOLDER, NERDALERT)]));
    const points = pointsOf(run);
    expect(run.pointCount).toBe(9);
    expect(points.map((p) => p.requestRate)).toEqual([10, 30, null, 10, 30, null, 10, 30, null]);
    expect(points.map((p) => p.requestRateUnbounded ?? false)).toEqual([
      false,
      false,
      true,
      false,
      false,
      true,
      false,
      false,
      true,
    ]);
    expect(points.map((p) => p.concurrency)).toEqual(Array(9).fill(null));
    expect(points.map((p) => p.completed)).toEqual([300, 900, 900, 300, 900, 900, 300, 900, 900]);

    expect(at(points, 0).outputTokPerS).toBe(2258.212337970085);
    expect(at(points, 8).outputTokPerS).toBe(11011.349280220396);
    expect(Math.max(...points.map((p) => Number(p.outputTokPerS ?? 0)))).toBe(11011.349280220396);
    expect(at(points, 2).ttftMsMean).toBe(4386.739448253334);
    expect(at(points, 0).ttftMsP99).toBe(98.69780922984769);
    expect(at(points, 0).totalTokPerS).toBe(10619.275253401978);
    expect(at(points, 0).requestThroughput).toBe(8.369432347779671);
    expect(at(points, 0).tpotMsMedian).toBe(13.686303201518745);
    expect(at(points, 0).itlMsP99).toBe(34.48662216016601);
    // No e2el stats were requested in this run.
    expect(at(points, 0).e2eMsMean).toBeNull();
    expect(at(points, 0).acceptLength).toBeNull();
    expect(at(points, 0).measuredConcurrency).toBeNull();
    // Lengths from the string metadata input_len/output_len, not the means (299700/300 = 999).
    expect(at(points, 0).inputLen).toBe(1000);
    expect(at(points, 0).outputLen).toBe(500);
    // Legacy typo key kept verbatim in raw; metadata strings kept verbatim there too.
    expect(at(points, 0).raw).toHaveProperty(["request_goodput:"], null);
    expect(at(points, 0).raw).toMatchObject({
      prefill_replicas: "0",
      input_len: "1000",
      request_rate: 10,
      date: "20250530-194738",
    });
    expect(at(points, 2).raw?.request_rate).toBe("inf");

    const start = startOf(run);
    // `date` is written when each result is saved (end of its run); read as UTC.
    expect(start.startedAt).toBe(
      Date.UTC(2025, 4, 30, 19, 47, 38) - Math.round(35.84472489100017 * 1000),
    );
    expect(endOf(run).endedAt).toBe(Date.UTC(2025, 4, 30, 20, 13, 4));
    expect(start.config).toMatchObject({
      format: "vllm-bench-serve",
      model: "meta-llama/Llama-3.2-3B-Instruct",
      tokenizer: "meta-llama/Llama-3.2-3B-Instruct",
      backend: "vllm",
      engine: "vllm",
      inputLen: 1000,
      outputLen: 500,
      burstiness: 1,
      metadata: {
        deployment: ["no-features", "base", "kvcache"],
        gpu: "4xNVIDIA_L40S",
        gateway: "kgateway",
        prefill_replicas: 0,
        decode_replicas: 4,
        input_len: 1000,
        output_len: 500,
      },
    });
  });
});

/** A newest-writer single object (--save-result --save-detailed), written without a newline. */
const detailed = {
  date: "20260112-093005",
  endpoint_type: "openai-chat",
  backend: "openai-chat",
  label: null,
  model_id: "Qwen/Qwen3.6-27B",
  tokenizer_id: "Qwen/Qwen3.6-27B",
  num_prompts: 64,
  tp: "2",
  "random-input-len": "30000",
  gpu: "2xA6000",
  mem_fraction: "0.88",
  commit: "0a1b2c3",
  request_rate: "inf",
  burstiness: 1.0,
  max_concurrency: 8,
  duration: 120.5,
  completed: 62,
  failed: 2,
  total_input_tokens: 1860000,
  total_output_tokens: 62000,
  request_throughput: 0.5145,
  request_goodput: null,
  output_throughput: 514.5,
  total_token_throughput: 15950.2,
  input_lens: Array.from({ length: 64 }, () => 30000),
  output_lens: Array.from({ length: 64 }, (_, i) => (i < 2 ? 0 : 1000)),
  ttfts: Array.from({ length: 64 }, () => 2.5),
  itls: Array.from({ length: 64 }, () => [0.012, 0.013]),
  latencies: Array.from({ length: 64 }, () => 14.0),
  start_times: Array.from({ length: 64 }, (_, i) => i * 0.01),
  generated_texts: Array.from({ length: 64 }, () => "..."),
  errors: Array.from({ length: 64 }, (_, i) => (i < 2 ? "timeout" : "")),
  max_output_tokens_per_s: 700.0,
  max_concurrent_requests: 8,
  rtfx: 0.0,
  spec_decode_acceptance_rate: 70.5,
  spec_decode_acceptance_length: 3.1,
  spec_decode_num_drafts: 1000,
  spec_decode_draft_tokens: 3000,
  spec_decode_accepted_tokens: 2115,
  spec_decode_per_position_acceptance_rates: [0.8, 0.7, 0.6],
  mean_ttft_ms: 2500.0,
  median_ttft_ms: 2450.0,
  std_ttft_ms: 100.0,
  p99_ttft_ms: 2900.0,
  "p99.9_ttft_ms": 2990.0,
  mean_tpot_ms: 12.1,
  median_tpot_ms: 12.0,
  std_tpot_ms: 0.5,
  p99_tpot_ms: 13.9,
  "p99.9_tpot_ms": 14.5,
  mean_itl_ms: 12.2,
  median_itl_ms: 12.1,
  std_itl_ms: 1.5,
  p99_itl_ms: 20.0,
  "p99.9_itl_ms": 40.0,
  mean_e2el_ms: 14600.0,
  median_e2el_ms: 14500.0,
  std_e2el_ms: 300.0,
  p99_e2el_ms: 15500.0,
  "p99.9_e2el_ms": 15900.0,
};

describe("vLLM single-object --save-result JSON (synthetic, newest writer)", () => {
  const text = pyJson(detailed); // json.dump: one object, no trailing newline
  const result = importBenchmarkFiles([
    { path: "results/openai-chat-infqps-concurrency8-Qwen3.6-27B-20260112-093005.json", text },
  ]);
  const run = onlyRun(result);
  const p = at(pointsOf(run), 0);

  test("detected and valid", () => {
    expect(text.endsWith("}")).toBe(true);
    expect(detectFormat(text)).toBe("vllm-bench-serve");
    expect(result.problems).toEqual([]);
    expectValidFrames(run.frames);
    expect(run.name).toBe("openai-chat-infqps-concurrency8-Qwen3.6-27B-20260112-093005.json");
  });

  test("'inf' rate, concurrency, failed, τ, p99 and lengths from string metadata", () => {
    expect(p.requestRate).toBeNull();
    expect(p.requestRateUnbounded).toBe(true);
    expect(p.concurrency).toBe(8);
    expect(p.completed).toBe(62);
    expect(p.failed).toBe(2);
    expect(p.acceptLength).toBe(3.1);
    expect(p.ttftMsP99).toBe(2900.0);
    expect(p.e2eMsMean).toBe(14600.0);
    expect(p.e2eMsP99).toBe(15500.0);
    expect(p.inputLen).toBe(30000);
    expect(p.outputLen).toBe(1000);
    expect(p.outputTokPerS).toBe(514.5);
  });

  test("raw drops per-request arrays (seconds) but keeps small lists and dynamic percentiles", () => {
    for (const key of [
      "input_lens",
      "output_lens",
      "ttfts",
      "itls",
      "latencies",
      "start_times",
      "generated_texts",
      "errors",
    ]) {
      expect(p.raw).not.toHaveProperty(key);
    }
    expect(p.raw).toHaveProperty(["p99.9_ttft_ms"], 2990.0);
    expect(p.raw?.spec_decode_per_position_acceptance_rates).toEqual([0.8, 0.7, 0.6]);
    expect(p.raw?.tp).toBe("2");
  });

  test("config: metadata coerced to numbers where numeric; generic backend means no engine", () => {
    const start = startOf(run);
    expect(start.config).toMatchObject({
      model: "Qwen/Qwen3.6-27B",
      backend: "openai-chat",
      inputLen: 30000,
      outputLen: 1000,
      metadata: {
        tp: 2,
        "random-input-len": 30000,
        gpu: "2xA6000",
        mem_fraction: 0.88,
        commit: "0a1b2c3",
      },
    });
    expect(start.config).not.toHaveProperty("engine");
    expect(start.config).not.toHaveProperty("label");
    expect(start.startedAt).toBe(Date.UTC(2026, 0, 12, 9, 30, 5) - 120500);
    expect(endOf(run).endedAt).toBe(Date.UTC(2026, 0, 12, 9, 30, 5));
  });

  test("pretty-printed copy of the same object imports the same point values", () => {
    const pretty = JSON.stringify({ ...detailed }, null, 2);
    const other = onlyRun(importBenchmarkFiles([{ path: "pretty.json", text: pretty }]));
    const q = at(pointsOf(other), 0);
    expect(q.ord).toBe(1);
    expect({ ...q, key: "", raw: {} }).toEqual({ ...p, key: "", raw: {} });
  });
});

describe("vLLM legacy and edge rows", () => {
  const legacy = {
    date: "20250101-120000",
    backend: "vllm",
    model_id: "m",
    tokenizer_id: "m",
    num_prompts: 10,
    request_rate: 2.0,
    burstiness: 1.0,
    max_concurrency: null,
    duration: 10.0,
    completed: 10,
    total_input_tokens: 5000,
    total_output_tokens: 1280,
    request_throughput: 1.0,
    "request_goodput:": 0.9,
    output_throughput: 128.0,
    total_token_throughput: 628.0,
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
    p99_itl_ms: 0.0,
  };

  test("request_goodput: typo key; non-streaming 0.0 latencies become null; mean lengths", () => {
    const text = pyJson(legacy) + "\n";
    expect(detectFormat(text)).toBe("vllm-bench-serve");
    const run = onlyRun(importBenchmarkFiles([{ path: "legacy.json", text }]));
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 0);
    expect(p.raw).toHaveProperty(["request_goodput:"], 0.9);
    expect([p.ttftMsMean, p.ttftMsP99, p.tpotMsMean, p.itlMsMedian]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(p.inputLen).toBe(500);
    expect(p.outputLen).toBe(128);
    expect(p.failed).toBeNull();
    expect(p.requestRate).toBe(2);
  });

  test("completed 0 → point with nulls, and the run ends failed", () => {
    const failed = {
      ...legacy,
      completed: 0,
      failed: 10,
      total_input_tokens: 0,
      total_output_tokens: 0,
      request_throughput: 0.0,
      output_throughput: 0.0,
      total_token_throughput: 0.0,
      mean_e2el_ms: 0.0,
    };
    const run = onlyRun(importBenchmarkFiles([{ path: "failed.json", text: pyJson(failed) }]));
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 0);
    expect(p.completed).toBe(0);
    expect(p.failed).toBe(10);
    expect([p.outputTokPerS, p.totalTokPerS, p.requestThroughput, p.e2eMsMean]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(p.inputLen).toBeNull();
    expect(endOf(run).status).toBe("failed");
    expect(endOf(run).error).toMatch(/completed = 0/);
  });

  test("vllmMetadata: only unknown string keys, numeric strings coerced", () => {
    expect(
      vllmMetadata({
        date: "20250101-120000",
        backend: "vllm",
        tp: "1",
        input_len: "1000",
        name: "x",
        n: 5,
        rate: "0.5",
        v: "1.2.3",
      }),
    ).toEqual({
      tp: 1,
      input_len: 1000,
      name: "x",
      rate: 0.5,
      v: "1.2.3",
    });
  });
});
