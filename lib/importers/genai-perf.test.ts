import { describe, expect, test } from "vitest";

import { stringifyJson } from "../protocol/json";
import { runKeyFor } from "./benchmark-run";
import {
  detectBenchmarkDocumentFormat,
  detectFormat,
  detectImportFormat,
  importBenchmarkFiles,
  importFiles,
  UnknownFormatError,
} from "./index";
import { sha256Hex } from "./source-text";
import { at, endOf, expectValidFrames, onlyRun, pointsOf, startOf, testdata } from "./testing";

// There is no real GenAI-Perf export in the shared fixtures (see genai-perf/SCHEMA.md): these files
// follow that SCHEMA and the writer (json_exporter.py: the stats dict + "input_config", indent 2).
// C1/C8 are the argparse-era layout (flat CLI args; `backend` is the unused default "tensorrtllm"
// of an OpenAI endpoint; a header argument carries a key); C32 is the config-file layout (nested
// sections), non-streaming, so it has no TTFT and no ITL, and its request_count avg is a string.

function stat(unit: string, avg: number, p50: number, p99: number): Record<string, unknown> {
  return {
    unit,
    avg,
    p99,
    p95: p99 - 1,
    p90: p99 - 2,
    p75: p50 + 1,
    p50,
    p25: p50 - 1,
    min: p50 - 2,
    max: p99 + 1,
    std: 1.5,
  };
}

function flatExport(
  concurrency: number,
  s: {
    rps: number;
    tps: number;
    ttft: [number, number, number];
    itl: [number, number, number];
    e2e: [number, number, number];
  },
): string {
  const dir = `artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency${concurrency}`;
  return JSON.stringify(
    {
      request_throughput: { unit: "requests/sec", avg: s.rps },
      request_latency: stat("ms", ...s.e2e),
      time_to_first_token: stat("ms", ...s.ttft),
      time_to_second_token: stat("ms", 21.1, 21.0, 23.4),
      inter_token_latency: stat("ms", ...s.itl),
      output_token_throughput: { unit: "tokens/sec", avg: s.tps },
      output_token_throughput_per_request: stat("tokens/sec", 49.1, 49.2, 50.3),
      output_sequence_length: stat("tokens", 99.9, 100, 100),
      input_sequence_length: stat("tokens", 1000.2, 1000, 1003),
      ...(concurrency === 8
        ? { telemetry_stats: { gpu_power_usage: { unit: "W", gpu0: { avg: 301.5, p99: 320.1 } } } }
        : {}),
      input_config: {
        model: ["meta-llama/Llama-3.1-8B-Instruct"],
        model_selection_strategy: "round_robin",
        backend: "tensorrtllm",
        endpoint: "v1/chat/completions",
        endpoint_type: "chat",
        service_kind: "openai",
        streaming: true,
        u: "localhost:8000",
        num_dataset_entries: 100,
        output_tokens_mean: 100,
        output_tokens_mean_deterministic: false,
        output_tokens_stddev: 0,
        random_seed: 0,
        synthetic_input_tokens_mean: 1000,
        synthetic_input_tokens_stddev: 0,
        concurrency,
        measurement_interval: 10000,
        request_rate: null,
        stability_percentage: 999,
        generate_plots: false,
        profile_export_file: `${dir}/profile_export.json`,
        artifact_dir: dir,
        tokenizer: "meta-llama/Llama-3.1-8B-Instruct",
        tokenizer_revision: "main",
        tokenizer_trust_remote_code: false,
        verbose: false,
        goodput: null,
        header: ["Authorization: Bearer sk-live-123"],
        prompt_source: "synthetic",
        subcommand: "profile",
        extra_inputs: { ignore_eos: true, max_tokens: 100, min_tokens: 100 },
      },
    },
    null,
    2,
  );
}

const C1 = {
  path: "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency1/profile_export_genai_perf.json",
  text: flatExport(1, {
    rps: 0.4816,
    tps: 48.12,
    ttft: [41.2, 40.1, 55.6],
    itl: [20.36, 20.34, 20.9],
    e2e: [2076.12, 2075.33, 2101.55],
  }),
};
const C8 = {
  path: "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency8/profile_export_genai_perf.json",
  text: flatExport(8, {
    rps: 3.412,
    tps: 340.86,
    ttft: [88.4, 80.2, 190.7],
    itl: [22.81, 22.7, 25.02],
    e2e: [2346.3, 2340.1, 2501.9],
  }),
};

const C32_DOC = {
  request_throughput: { unit: "requests/sec", avg: 1.204 },
  request_latency: stat("ms", 26571.4, 26490.2, 28804.7),
  output_token_throughput: { unit: "tokens/sec", avg: 1203.9 },
  output_token_throughput_per_user: stat("tokens/sec/user", 37.6, 37.8, 41.2),
  output_sequence_length: stat("tokens", 999.8, 1000, 1000),
  input_sequence_length: stat("tokens", 1000.1, 1000, 1002),
  request_count: { unit: "count", avg: "96" },
  input_config: {
    model_names: ["Qwen/Qwen3-8B"],
    analyze: {},
    endpoint: {
      model_selection_strategy: "round_robin",
      backend: "tensorrtllm",
      custom: "v1/chat/completions",
      type: "chat",
      service_kind: "openai",
      streaming: false,
      server_metrics_urls: [],
      url: "http://kpro5:30000",
    },
    perf_analyzer: {
      path: "perf_analyzer",
      verbose: false,
      stimulus: { concurrency: 32 },
      stability_percentage: 999,
      measurement: { mode: "request_count", num: 96 },
      warmup_request_count: 8,
    },
    input: {
      batch_size: 1,
      extra: { ignore_eos: true },
      goodput: {},
      header: ["X-Api-Key: abc123"],
      file: null,
      num_dataset_entries: 100,
      random_seed: 0,
      output_tokens: { mean: 1000, deterministic: false, stddev: 0 },
      synthetic_tokens: { mean: 1000, stddev: 0 },
    },
    output: {
      artifact_directory: "artifacts/Qwen_Qwen3-8B-openai-chat-concurrency32",
      profile_export_file: "profile_export.json",
      generate_plots: false,
    },
    tokenizer: { name: "Qwen/Qwen3-8B", revision: "main", trust_remote_code: false },
  },
};
const C32 = {
  path: "artifacts/Qwen_Qwen3-8B-openai-chat-concurrency32/profile_export_genai_perf.json",
  text: JSON.stringify(C32_DOC, null, 2),
};

describe("GenAI-Perf profile exports", () => {
  test("detection by keys; the pre-existing 'no result row' cases stay unrecognised", () => {
    expect(detectBenchmarkDocumentFormat(C1.text)).toBe("genai-perf");
    expect(detectBenchmarkDocumentFormat(JSON.stringify(JSON.parse(C32.text)))).toBe("genai-perf");
    expect(detectImportFormat(C1.text)).toEqual({ kind: "benchmark", format: "genai-perf" });
    // the row classifier is unchanged
    expect(detectFormat(C1.text)).toBeNull();
    // without input_config a bag of metrics is not an export
    expect(
      detectBenchmarkDocumentFormat(
        '{"request_throughput": {"unit": "requests/sec", "avg": 3.2}, "service_kind": "openai"}',
      ),
    ).toBeNull();
    expect(
      detectBenchmarkDocumentFormat(
        '{"input_config": {}, "request_throughput": {"unit": "requests/sec", "avg": 3.2}}',
      ),
    ).toBeNull();
    expect(() =>
      importBenchmarkFiles([{ path: "p.json", text: '{"service_kind": "openai"}' }]),
    ).toThrow(UnknownFormatError);
  });

  test("the files of one import make ONE run named by the artifact folder; one point per file", () => {
    const result = importBenchmarkFiles([C8, C1]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.format).toBe("genai-perf");
    expect(run.name).toBe("meta-llama_Llama-3.1-8B-Instruct-openai-chat");
    expect(run.runKey).toBe(runKeyFor([sha256Hex(C1.text), sha256Hex(C8.text)]));
    expect(run.files).toEqual([C1.path, C8.path]);
    const points = pointsOf(run);
    expect(points.map((p) => [p.concurrency, p.ord])).toEqual([
      [1, 1],
      [8, 1 + C1.text.split("\n").length],
    ]);
    const c1 = at(points, 0);
    expect(c1).toMatchObject({
      scenario: "throughput",
      dataset: "synthetic",
      concurrency: 1,
      measuredConcurrency: null,
      requestRate: null,
      inputLen: 1000,
      outputLen: 100,
      completed: null,
      failed: null,
      durationS: null,
      requestThroughput: 0.4816,
      outputTokPerS: 48.12,
      totalTokPerS: null,
      ttftMsMean: 41.2,
      ttftMsMedian: 40.1,
      ttftMsP99: 55.6,
      // GenAI-Perf's "inter token latency" is (latency − TTFT) / (tokens − 1): TPOT
      tpotMsMean: 20.36,
      tpotMsMedian: 20.34,
      tpotMsP99: 20.9,
      itlMsMean: null,
      itlMsMedian: null,
      itlMsP99: null,
      e2eMsMean: 2076.12,
      e2eMsMedian: 2075.33,
      e2eMsP99: 2101.55,
      acceptLength: null,
    });
    // raw keeps the stats and args, but no credentials and no telemetry
    expect((c1.raw?.input_config as Record<string, unknown>).header).toBe("[redacted]");
    expect(stringifyJson(run.frames)).not.toContain("sk-live-123");
    expect(at(points, 1).raw).not.toHaveProperty("telemetry_stats");
    expect(at(points, 1).raw).toHaveProperty("time_to_second_token");
    expect(at(points, 1)).toMatchObject({
      concurrency: 8,
      ttftMsMedian: 80.2,
      tpotMsMean: 22.81,
      outputTokPerS: 340.86,
      e2eMsP99: 2501.9,
    });

    expect(startOf(run).config).toEqual({
      format: "genai-perf",
      benchmarkTool: "genai-perf",
      model: "meta-llama/Llama-3.1-8B-Instruct",
      serviceKind: "openai",
      endpointType: "chat",
      streaming: true,
      tokenizer: "meta-llama/Llama-3.1-8B-Instruct",
      dataset: "synthetic",
      inputLen: 1000,
      outputLen: 100,
      sourceFiles: ["profile_export_genai_perf.json", "profile_export_genai_perf.json"],
    });
    expect(endOf(run)).toMatchObject({ status: "succeeded" });
    expect(endOf(run)).not.toHaveProperty("endedAt");

    // order of arguments does not matter; a name still names the one run
    expect(stringifyJson(importBenchmarkFiles([C1, C8]))).toBe(stringifyJson(result));
    expect(onlyRun(importBenchmarkFiles([C1, C8], { name: "Llama 8B sweep" })).name).toBe(
      "Llama 8B sweep",
    );
  });

  test("the config-file layout, without streaming: no TTFT/TPOT, counts from request_count", () => {
    const run = onlyRun(importBenchmarkFiles([C32]));
    expectValidFrames(run.frames);
    expect(run.name).toBe("Qwen_Qwen3-8B-openai-chat-concurrency32");
    expect(at(pointsOf(run), 0)).toMatchObject({
      concurrency: 32,
      inputLen: 1000,
      outputLen: 1000,
      completed: 96,
      requestThroughput: 1.204,
      outputTokPerS: 1203.9,
      ttftMsMean: null,
      ttftMsP99: null,
      tpotMsMean: null,
      tpotMsMedian: null,
      e2eMsMean: 26571.4,
      e2eMsMedian: 26490.2,
    });
    expect(startOf(run).config).toMatchObject({
      model: "Qwen/Qwen3-8B",
      streaming: false,
      tokenizer: "Qwen/Qwen3-8B",
      endpointType: "chat",
      serviceKind: "openai",
    });
    expect(startOf(run).config).not.toHaveProperty("backend");
    expect(stringifyJson(run.frames)).not.toContain("abc123");
  });

  test("request-rate mode, time units, AIPerf fields, odd units", () => {
    const doc = JSON.parse(C1.text) as Record<string, Record<string, unknown>>;
    doc.input_config = {
      ...doc.input_config,
      concurrency: null,
      request_rate: 10.0,
      prompt_source: "dataset",
      input_dataset: "openorca",
      synthetic_input_tokens_mean: 550,
    };
    doc.time_to_first_token = stat("ns", 41_200_000, 40_100_000, 55_600_000);
    doc.request_latency = { unit: "tokens/sec", avg: 5 };
    const result = importBenchmarkFiles([
      { path: "rate10/profile_export_genai_perf.json", text: JSON.stringify(doc, null, 2) },
    ]);
    const p = at(pointsOf(onlyRun(result)), 0);
    expect(p).toMatchObject({
      concurrency: null,
      requestRate: 10,
      dataset: "openorca",
      inputLen: 1000,
      ttftMsMean: 41.2,
      ttftMsMedian: 40.1,
      ttftMsP99: 55.6,
      e2eMsMean: null,
    });
    expect(result.problems).toEqual([
      {
        file: "rate10/profile_export_genai_perf.json",
        line: 1,
        message: `'request_latency' has unit "tokens/sec", not a time unit; left out`,
      },
    ]);

    const aiperf = {
      schema_version: "1.0",
      aiperf_version: "0.3.0",
      start_time: "2026-11-29T09:30:00Z",
      end_time: "2026-11-29T09:32:00Z",
      request_throughput: { unit: "requests/sec", avg: 2.5 },
      request_latency: stat("ms", 400, 390, 610),
      benchmark_duration: { unit: "sec", avg: 120 },
      request_count: { unit: "requests", avg: 300 },
      error_request_count: { unit: "requests", avg: 2 },
    };
    const run = onlyRun(
      importBenchmarkFiles([
        { path: "profile_export_aiperf.json", text: JSON.stringify(aiperf, null, 2) },
      ]),
    );
    expectValidFrames(run.frames);
    expect(at(pointsOf(run), 0)).toMatchObject({
      durationS: 120,
      completed: 300,
      failed: 2,
      requestThroughput: 2.5,
      e2eMsMedian: 390,
    });
    expect(startOf(run)).toMatchObject({
      startedAt: Date.parse("2026-11-29T09:30:00Z"),
      config: { benchmarkTool: "aiperf", toolVersion: "0.3.0" },
    });
    expect(endOf(run)).toMatchObject({ endedAt: Date.parse("2026-11-29T09:32:00Z") });
  });

  test("streaming off: TTFT equal to the request latency is not measured (null), never a TTFT", () => {
    // testdata: an argparse-era export of a non-streaming chat run at concurrency 8; GenAI-Perf
    // wrote request_latency (19 s) again as time_to_first_token, and 0 for the inter-token latency.
    const file = testdata("genai-perf-no-streaming/profile_export_genai_perf.json");
    const run = onlyRun(importBenchmarkFiles([file]));
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 0);
    expect(p).toMatchObject({
      concurrency: 8,
      ttftMsMean: null,
      ttftMsMedian: null,
      ttftMsP99: null,
      tpotMsMean: null,
      tpotMsP99: null,
    });
    expect(p).toMatchObject({
      e2eMsMean: 19034.51,
      e2eMsMedian: 18990.2,
      e2eMsP99: 19877.31,
      outputTokPerS: 215.19,
    });
    expect(startOf(run).config).toMatchObject({ streaming: false });

    // The same file without its `streaming` argument: the equal distributions alone say it.
    const doc = JSON.parse(file.text) as { input_config: Record<string, unknown> };
    delete doc.input_config.streaming;
    const unflagged = at(
      pointsOf(
        onlyRun(importBenchmarkFiles([{ path: file.path, text: JSON.stringify(doc, null, 2) }])),
      ),
      0,
    );
    expect(unflagged).toMatchObject({ ttftMsMean: null, ttftMsP99: null, e2eMsMean: 19034.51 });
    // A streamed run whose TTFT differs from its latency keeps it (C1: 41.2 ms vs 2076 ms).
    expect(at(pointsOf(onlyRun(importBenchmarkFiles([C1]))), 0)).toMatchObject({
      ttftMsMean: 41.2,
    });
  });

  test("importFiles sends exports to the benchmark importer, next to other formats", () => {
    const mixed = importFiles([C1, C8]);
    expect(mixed.benchmarkRuns.map((r) => [r.format, r.pointCount])).toEqual([["genai-perf", 2]]);
    expect(mixed.evalRuns).toEqual([]);
  });
});
