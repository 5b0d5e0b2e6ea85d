import type { BenchmarkPointView } from "../view-models";

let counter = 0;

/**
 * A benchmark point for unit tests: a successful throughput point (1000 in / 1000 out, 100
 * completed requests in 60 s, 100 output tok/s, no latencies) with a fresh key, overridden by `over`.
 */
export function benchmarkPoint(over: Partial<BenchmarkPointView> = {}): BenchmarkPointView {
  counter++;
  return {
    key: `p${counter}`,
    ord: counter,
    scenario: "throughput",
    dataset: "random",
    concurrency: null,
    measuredConcurrency: null,
    requestRate: null,
    requestRateUnbounded: false,
    inputLen: 1000,
    outputLen: 1000,
    completed: 100,
    failed: 0,
    durationS: 60,
    requestThroughput: null,
    outputTokPerS: 100,
    totalTokPerS: null,
    ttftMsMean: null,
    ttftMsMedian: null,
    ttftMsP99: null,
    tpotMsMean: null,
    tpotMsMedian: null,
    tpotMsP99: null,
    itlMsMean: null,
    itlMsMedian: null,
    itlMsP99: null,
    e2eMsMean: null,
    e2eMsMedian: null,
    e2eMsP99: null,
    acceptLength: null,
    raw: {},
    updatedAt: "2026-01-01T00:00:00Z",
    ...over,
  };
}
