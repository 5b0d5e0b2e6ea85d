import type { BenchmarkPointInput } from "@/lib/protocol";

import { gaussian, type Rng } from "./rng";

/**
 * The numbers the simulated training and benchmark workers report: pure functions of the step
 * or concurrency level plus seeded noise, shaped like real runs (a DFlash drafter's loss, a
 * warmup + cosine learning rate, an SGLang `bench_serving` sweep of Qwen3.6-27B on 2x A6000).
 */

/** Training schedule of the simulated drafter. */
export interface TrainingSchedule {
  totalSteps: number;
  warmupSteps: number;
  peakLr: number;
  minLr: number;
}

/** Learning rate at `step`: linear warmup to `peakLr`, then cosine decay to `minLr`. */
export function learningRate(step: number, s: TrainingSchedule): number {
  if (step < s.warmupSteps) return (s.peakLr * (step + 1)) / s.warmupSteps;
  const progress = Math.min(1, (step - s.warmupSteps) / Math.max(1, s.totalSteps - s.warmupSteps));
  return s.minLr + 0.5 * (s.peakLr - s.minLr) * (1 + Math.cos(Math.PI * progress));
}

/** Training loss at `step`: a fast then a slow decay towards ~0.6, with noise that shrinks over time. */
export function trainingLoss(step: number, rng: Rng): number {
  const mean = 0.6 + 2.9 * Math.exp(-step / 2500) + 0.45 * Math.exp(-step / 250);
  return Math.max(0.05, mean + gaussian(rng) * 0.035 * (1 + 1.5 * Math.exp(-step / 4000)));
}

/** Gradient norm at `step`: large early, settling near 0.8, with an occasional spike. */
export function gradNorm(step: number, rng: Rng): number {
  const spike = rng() < 0.01 ? 2 + 3 * rng() : 0;
  return 0.8 + 2.4 * Math.exp(-step / 900) + Math.abs(gaussian(rng)) * 0.12 + spike;
}

/** Concurrency levels of the throughput sweep: 1, 2, 4, …, 128. */
export const SWEEP_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64, 128] as const;

/** Aggregate output tok/s by concurrency: 26.5 for one request, saturating at 577.8 from C=32. */
const OUTPUT_TOK_PER_S: Record<number, number> = {
  1: 26.5,
  2: 51.9,
  4: 99.8,
  8: 187.2,
  16: 334.6,
  32: 577.8,
  64: 577.3,
  128: 576.1,
};
/** Median TTFT in ms by concurrency: prefill queueing grows once decode saturates. */
const TTFT_MS: Record<number, number> = {
  1: 85.7,
  2: 92.4,
  4: 104.9,
  8: 131.6,
  16: 198.3,
  32: 412.5,
  64: 3180,
  128: 9870,
};

const INPUT_LEN = 1000;
const OUTPUT_LEN = 1000;

/**
 * One sweep level as `bench_serving` would report it (random dataset, 1000 in / 1000 out),
 * scaled by `scale` (1 = the reference deployment), with `durationS` the simulated wall time the
 * level takes. Throughputs in tok/s and req/s, latencies in ms.
 * @throws Error for a concurrency outside {@link SWEEP_CONCURRENCY}.
 */
export function sweepPoint(
  concurrency: number,
  ord: number,
  scale: number,
  rng: Rng,
): BenchmarkPointInput & { durationS: number } {
  const base = OUTPUT_TOK_PER_S[concurrency];
  const ttft = TTFT_MS[concurrency];
  if (base === undefined || ttft === undefined)
    throw new Error(`no reference numbers for concurrency ${concurrency}`);
  const outputTokPerS = Math.round(base * scale * 10) / 10;
  const prompts = Math.max(10, 4 * concurrency);
  const failed = concurrency >= 128 ? 3 : 0;
  const completed = prompts - failed;
  const durationS = (completed * OUTPUT_LEN) / outputTokPerS;
  // With every request in flight, each one takes C * outputLen / aggregate tok/s end to end.
  const e2eMs = ((concurrency * OUTPUT_LEN) / outputTokPerS) * 1000;
  const ttftMs = ttft * (1 + 0.03 * gaussian(rng));
  const tpotMs = (e2eMs - ttftMs) / (OUTPUT_LEN - 1);
  const acceptLength = 2.95 - 0.05 * Math.log2(concurrency);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const r2 = (v: number) => Math.round(v * 100) / 100;
  return {
    key: `throughput-c${concurrency}`,
    ord,
    scenario: "throughput",
    dataset: "random",
    concurrency,
    measuredConcurrency: r2(concurrency * (0.97 + 0.02 * rng())),
    requestRateUnbounded: true,
    inputLen: INPUT_LEN,
    outputLen: OUTPUT_LEN,
    completed,
    failed,
    durationS: r2(durationS),
    requestThroughput: Math.round((completed / durationS) * 1000) / 1000,
    outputTokPerS,
    totalTokPerS: r1(((INPUT_LEN + OUTPUT_LEN) * completed) / durationS),
    ttftMsMean: r1(ttftMs * 1.05),
    ttftMsMedian: r1(ttftMs),
    ttftMsP99: r1(ttftMs * (concurrency >= 64 ? 2.1 : 1.6)),
    tpotMsMean: r2(tpotMs * 1.01),
    tpotMsMedian: r2(tpotMs),
    tpotMsP99: r2(tpotMs * 1.25),
    itlMsMean: r2(tpotMs * acceptLength * 1.02),
    itlMsMedian: r2(tpotMs * acceptLength),
    itlMsP99: r2(tpotMs * acceptLength * 1.9),
    e2eMsMean: r1(e2eMs * 1.01),
    e2eMsMedian: r1(e2eMs),
    e2eMsP99: r1(e2eMs * 1.15),
    acceptLength: r2(acceptLength),
    raw: {
      backend: "sglang",
      dataset_name: "random",
      random_input_len: INPUT_LEN,
      random_output_len: OUTPUT_LEN,
      max_concurrency: concurrency,
      num_prompts: prompts,
    },
  };
}
