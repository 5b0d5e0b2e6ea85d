import { describe, expect, test } from "vitest";

import { stringifyJson } from "../protocol/json";
import {
  detectBenchmarkDocumentFormat,
  detectImportFormat,
  importBenchmarkFiles,
  importFiles,
} from "./index";
import { at, endOf, expectValidFrames, onlyRun, pointsOf, startOf } from "./testing";

// There is no real GuideLLM report in the shared fixtures (see guidellm/SCHEMA.md): the reports
// below follow that SCHEMA and the pydantic models (GenerativeBenchmarksReport →
// GenerativeBenchmark → GenerativeMetrics of StatusDistributionSummary), as `guidellm benchmark
// --output-path benchmarks.json` writes them (indent 2): a 0.4-style sweep with metadata/args,
// config.strategy, request_totals under metrics, sampled requests, null statistics, an empty
// errored status and a benchmark where every request failed; and a 0.2-style report (args.strategy,
// worker, request_loader.data, request_totals on the benchmark).

type Dist = Record<string, unknown>;

/** A DistributionSummary; `null` statistics where the writer has none. */
function dist(mean: number | null, median: number | null, p99: number | null, count: number): Dist {
  return {
    mean,
    median,
    mode: median,
    variance: mean === null ? null : 1.44,
    std_dev: mean === null ? null : 1.2,
    min: median === null ? null : median - 3,
    max: p99 === null ? null : p99 + 1,
    count,
    total_sum: mean === null ? null : mean * count,
    percentiles: {
      p001: median,
      p01: median,
      p05: median,
      p10: median,
      p25: median,
      p50: median,
      p75: median,
      p90: p99,
      p95: p99,
      p99,
      p999: p99,
    },
  };
}
const EMPTY = dist(0, 0, 0, 0);

/** A StatusDistributionSummary with the given successful distribution (total alike unless given). */
function status(successful: Dist, total: Dist = successful): Dist {
  return { successful, errored: EMPTY, incomplete: EMPTY, total };
}

const T0 = 1795944600; // 2026-11-29 09:30:00 UTC, epoch seconds

function benchmark(opts: {
  strategy: Record<string, unknown>;
  start: number;
  duration: number;
  totals: { successful: number; errored: number; incomplete: number };
  rps: number;
  outTps: number;
  tps: number;
  ttft: [number | null, number | null, number | null];
  itl: [number, number, number];
  latencyS: [number, number, number];
  concurrency: number;
  promptTokens: number;
  outputTokens: number;
}): Record<string, unknown> {
  const n = opts.totals.successful;
  return {
    type_: "generative_benchmark",
    config: {
      id_: `bench-${opts.start}`,
      run_id: "5d1e0c3a-run",
      run_index: 0,
      strategy: opts.strategy,
      constraints: { max_seconds: { max_duration: 30 } },
      profile: { type_: "sweep", sweep_size: 4 },
      requests: { data: ["prompt_tokens=1000,output_tokens=1000"] },
      backend: { type: "openai_http", target: "http://kpro5:8000", model: "Qwen/Qwen3-8B" },
      environment: {},
    },
    scheduler_state: { node_id: 0, num_processes: 2 },
    scheduler_metrics: {
      start_time: opts.start - 1,
      measure_start_time: opts.start,
      measure_end_time: opts.start + opts.duration,
      requests_made: {
        successful: n,
        errored: opts.totals.errored,
        incomplete: opts.totals.incomplete,
        total: n + opts.totals.errored + opts.totals.incomplete,
      },
    },
    metrics: {
      request_totals: { ...opts.totals, total: n + opts.totals.errored + opts.totals.incomplete },
      requests_per_second: status(
        dist(opts.rps, opts.rps, opts.rps, n),
        dist(opts.rps + 0.1, opts.rps, opts.rps, n + 1),
      ),
      request_concurrency: status(
        dist(opts.concurrency - 0.5, opts.concurrency, opts.concurrency, n),
        dist(opts.concurrency, opts.concurrency, opts.concurrency, n),
      ),
      request_latency: status(dist(...opts.latencyS, n)),
      prompt_token_count: status(dist(opts.promptTokens, opts.promptTokens, opts.promptTokens, n)),
      output_token_count: status(dist(opts.outputTokens, opts.outputTokens, opts.outputTokens, n)),
      time_to_first_token_ms: status(dist(...opts.ttft, n)),
      time_per_output_token_ms: status(dist(21.5, 21.4, 23.0, n)),
      inter_token_latency_ms: status(dist(...opts.itl, n)),
      output_tokens_per_second: status(
        dist(opts.outTps, opts.outTps, opts.outTps, n),
        dist(opts.outTps + 5, opts.outTps, opts.outTps, n),
      ),
      tokens_per_second: status(dist(opts.tps, opts.tps, opts.tps, n)),
      text: { tokens: { input: status(dist(1000, 1000, 1000, n)), output: null } },
    },
    requests: {
      successful: [
        {
          request_id: "r-1",
          prompt_tokens: 1000,
          output_tokens: 1000,
          request_latency: opts.latencyS[0],
          time_to_first_token_ms: opts.ttft[0],
        },
      ],
      incomplete: [],
      errored: [],
      total: null,
    },
    start_time: opts.start,
    end_time: opts.start + opts.duration,
    duration: opts.duration,
    warmup_duration: 1.0,
    cooldown_duration: 0.0,
  };
}

const SWEEP_DOC = {
  metadata: {
    version: 1,
    guidellm_version: "0.4.0",
    python_version: "3.12.3",
    platform: "Linux-6.8.0-x86_64",
  },
  args: {
    target: "http://kpro5:8000",
    data: ["prompt_tokens=1000,output_tokens=1000"],
    profile: "sweep",
    rate: 4,
    max_seconds: 30,
    model: "Qwen/Qwen3-8B",
    backend: "openai_http",
  },
  benchmarks: [
    benchmark({
      strategy: { type_: "synchronous" },
      start: T0,
      duration: 30,
      totals: { successful: 14, errored: 0, incomplete: 1 },
      rps: 0.4667,
      outTps: 46.1,
      tps: 512.3,
      ttft: [41.2, 40.1, 55.6],
      itl: [20.36, 20.34, 20.9],
      latencyS: [2.07612, 2.07533, 2.10155],
      concurrency: 1,
      promptTokens: 1000,
      outputTokens: 998.6,
    }),
    benchmark({
      strategy: { type_: "throughput", max_concurrency: null },
      start: T0 + 40,
      duration: 30,
      totals: { successful: 480, errored: 2, incomplete: 64 },
      rps: 16.02,
      outTps: 15980.4,
      tps: 31990.7,
      // the writer had no TTFT statistics here (null mean/median/p99)
      ttft: [null, null, null],
      itl: [55.1, 54.8, 80.2],
      latencyS: [57.3, 56.9, 61.0],
      concurrency: 962.5,
      promptTokens: 1000,
      outputTokens: 1000,
    }),
    benchmark({
      strategy: { type_: "constant", rate: 2.5, initial_burst: true },
      start: T0 + 80,
      duration: 30.5,
      totals: { successful: 74, errored: 0, incomplete: 2 },
      rps: 2.46,
      outTps: 2455.2,
      tps: 4910.9,
      ttft: [48.3, 47.0, 71.9],
      itl: [22.4, 22.3, 25.0],
      latencyS: [22.43, 22.39, 25.11],
      concurrency: 55.1,
      promptTokens: 1000,
      outputTokens: 1000,
    }),
  ],
};

const failed = benchmark({
  strategy: { type_: "poisson", rate: 40 },
  start: T0 + 120,
  duration: 30,
  totals: { successful: 0, errored: 300, incomplete: 0 },
  rps: 0,
  outTps: 0,
  tps: 0,
  ttft: [0, 0, 0],
  itl: [0, 0, 0],
  latencyS: [0, 0, 0],
  concurrency: 0,
  promptTokens: 0,
  outputTokens: 0,
});
const SWEEP = {
  path: "runs/qwen3-8b/benchmarks.json",
  text: JSON.stringify({ ...SWEEP_DOC, benchmarks: [...SWEEP_DOC.benchmarks, failed] }, null, 2),
};

describe("GuideLLM benchmarks.json", () => {
  test("detection", () => {
    expect(detectBenchmarkDocumentFormat(SWEEP.text)).toBe("guidellm");
    expect(detectImportFormat(SWEEP.text)).toEqual({ kind: "benchmark", format: "guidellm" });
    expect(detectBenchmarkDocumentFormat('{"benchmarks": []}')).toBeNull();
    expect(
      detectBenchmarkDocumentFormat('{"benchmarks": [{"metrics": {"requests_per_second": {}}}]}'),
    ).toBeNull();
  });

  test("a sweep: one point per benchmark, successful-request statistics, SGLang/vLLM units", () => {
    const result = importBenchmarkFiles([SWEEP]);
    expect(result.problems).toEqual([]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.format).toBe("guidellm");
    expect(run.name).toBe("benchmarks.json");
    const points = pointsOf(run);
    expect(points).toHaveLength(4);
    // ord = the line where each benchmark starts
    const lines = SWEEP.text.split("\n");
    expect(points.map((p) => lines[(p.ord ?? 0) - 1])).toEqual([
      "    {",
      "    {",
      "    {",
      "    {",
    ]);
    expect(new Set(points.map((p) => p.key)).size).toBe(4);

    expect(at(points, 0)).toMatchObject({
      scenario: "throughput",
      dataset: null,
      concurrency: 1,
      measuredConcurrency: 1,
      requestRate: null,
      inputLen: 1000,
      outputLen: 1000,
      completed: 14,
      failed: 0,
      durationS: 30,
      requestThroughput: 0.4667,
      outputTokPerS: 46.1,
      totalTokPerS: 512.3,
      ttftMsMean: 41.2,
      ttftMsMedian: 40.1,
      ttftMsP99: 55.6,
      tpotMsMean: 20.36,
      tpotMsMedian: 20.34,
      tpotMsP99: 20.9,
      itlMsMean: null,
      itlMsMedian: null,
      itlMsP99: null,
      e2eMsMean: 2.07612 * 1000,
      e2eMsMedian: 2.07533 * 1000,
      e2eMsP99: 2.10155 * 1000,
      acceptLength: null,
    });
    expect(at(points, 1)).toMatchObject({
      concurrency: null,
      requestRate: null,
      requestRateUnbounded: true,
      measuredConcurrency: 962.5,
      completed: 480,
      failed: 2,
      ttftMsMean: null,
      ttftMsMedian: null,
      ttftMsP99: null,
      tpotMsMedian: 54.8,
      e2eMsMedian: 56.9 * 1000,
    });
    expect(at(points, 2)).toMatchObject({
      concurrency: null,
      requestRate: 2.5,
      durationS: 30.5,
      outputTokPerS: 2455.2,
      ttftMsP99: 71.9,
    });
    // every request failed: kept, with null figures rather than 0 tok/s
    expect(at(points, 3)).toMatchObject({
      requestRate: 40,
      completed: 0,
      failed: 300,
      requestThroughput: null,
      outputTokPerS: null,
      ttftMsMean: null,
      e2eMsMean: null,
      measuredConcurrency: null,
    });

    // raw: no sampled requests; metrics reduced to a few statistics
    const raw = at(points, 0).raw as {
      metrics: Record<string, Record<string, Record<string, unknown>>>;
      requests?: unknown;
    };
    expect(raw.requests).toBeUndefined();
    expect(raw.metrics.time_per_output_token_ms?.successful).toEqual({
      mean: 21.5,
      median: 21.4,
      std_dev: 1.2,
      min: 18.4,
      max: 24,
      count: 14,
      p50: 21.4,
      p90: 23,
      p95: 23,
      p99: 23,
    });
    expect(raw.metrics.request_totals).toEqual({
      successful: 14,
      errored: 0,
      incomplete: 1,
      total: 15,
    });
    expect(raw.metrics).not.toHaveProperty("text");

    expect(startOf(run)).toMatchObject({
      startedAt: T0 * 1000,
      config: {
        format: "guidellm",
        benchmarkTool: "guidellm",
        toolVersion: "0.4.0",
        model: "Qwen/Qwen3-8B",
        backend: "openai_http",
        profile: "sweep",
        strategy: ["synchronous", "throughput", "constant", "poisson"],
        inputLen: 1000,
        outputLen: 1000,
      },
    });
    expect(endOf(run)).toMatchObject({ status: "succeeded", endedAt: (T0 + 150) * 1000 });
    expect(stringifyJson(importBenchmarkFiles([SWEEP]))).toBe(stringifyJson(result));
  });

  test("0.2-style report: args.strategy, worker, request_loader; lengths from the data spec; bad entries", () => {
    const b = benchmark({
      strategy: { type_: "concurrent", streams: 4 },
      start: T0,
      duration: 30,
      totals: { successful: 120, errored: 0, incomplete: 4 },
      rps: 4.0,
      outTps: 505.3,
      tps: 1515.9,
      ttft: [30.1, 29.8, 44.0],
      itl: [7.6, 7.55, 8.9],
      latencyS: [0.99, 0.98, 1.2],
      concurrency: 3.96,
      promptTokens: 257.3,
      outputTokens: 127.9,
    }) as Record<string, unknown> & { metrics: Record<string, unknown> };
    const { request_totals: totals, ...metrics } = b.metrics;
    const old = {
      type_: "generative_benchmark",
      id_: "c0ffee",
      run_id: "r1",
      args: {
        profile: { type_: "concurrent", streams: [4] },
        strategy_index: 0,
        strategy: { type_: "concurrent", streams: 4 },
        max_duration: 30,
      },
      run_stats: { start_time: T0, end_time: T0 + 30 },
      worker: {
        type_: "generative_requests_worker",
        backend_type: "openai_http",
        backend_target: "http://localhost:8000",
        backend_model: "meta-llama/Llama-3.1-8B-Instruct",
      },
      request_loader: {
        type_: "generative_request_loader",
        data: "prompt_tokens=256,output_tokens=128",
        data_args: null,
      },
      extras: {},
      metrics,
      request_totals: totals,
      requests: b.requests,
      start_time: T0,
      end_time: T0 + 30,
    };
    const text = JSON.stringify(
      { benchmarks: [old, "oops", { type_: "embeddings_benchmark", metrics: {} }] },
      null,
      2,
    );
    const result = importBenchmarkFiles([{ path: "benchmarks.json", text }]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(at(pointsOf(run), 0)).toMatchObject({
      concurrency: 4,
      inputLen: 256,
      outputLen: 128,
      completed: 120,
      durationS: 30,
      tpotMsMean: 7.6,
      e2eMsMean: 990,
    });
    expect(startOf(run).config).toMatchObject({
      model: "meta-llama/Llama-3.1-8B-Instruct",
      backend: "openai_http",
      profile: "concurrent",
      strategy: "concurrent",
      inputLen: 256,
    });
    const lines = text.split("\n");
    const second = lines.indexOf('    "oops",') + 1;
    expect(result.problems).toEqual([
      {
        file: "benchmarks.json",
        line: second,
        message: "benchmarks[1] has no 'metrics' object; skipped",
      },
      {
        file: "benchmarks.json",
        line: second + 1,
        message: 'benchmarks[2] is a "embeddings_benchmark", not a generative benchmark; skipped',
      },
    ]);
  });

  test("a report without any usable benchmark is not imported; importFiles routes reports", () => {
    expect(() =>
      importBenchmarkFiles([
        {
          path: "b.json",
          text: JSON.stringify({
            benchmarks: [
              {
                type_: "embeddings_benchmark",
                metrics: { requests_per_second: {}, request_latency: {} },
              },
            ],
          }),
        },
      ]),
    ).toThrow(
      /b\.json: not a recognised benchmark result file .*GuideLLM output without any usable result/,
    );
    const mixed = importFiles([SWEEP]);
    expect(mixed.benchmarkRuns.map((r) => [r.format, r.pointCount])).toEqual([["guidellm", 4]]);
  });
});
