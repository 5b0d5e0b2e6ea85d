import type { PitwallSocket } from "@/lib/client";
import type { BenchmarkPointInput } from "@/lib/protocol";

import { gpuReading, type DemoContext, type DemoWorker, type GpuReading } from "./context";
import { gaussian, simClock, type Rng } from "./rng";

/**
 * Deployment comparison on `kpro6` (8x RTX PRO 6000): Kimi K2.6 served by SGLang 0.5.11 three
 * ways — TP8, EP8, and EP8 with MTP (NEXTN) speculation. At start the demo pushes the three
 * finished benchmark runs of the last days (each a throughput sweep C = 1..128 at 1000 in / 1000
 * out plus long-context points at 30K / 60K / 100K input, C=1), so /compare has deployments to
 * overlay and project. Then a live long-context run on the EP8 + MTP deployment pushes C=1 and
 * C=4 at 30K / 60K / 100K as each level finishes (a run with long-context points only).
 */

/** The host's GPUs. */
const GPU = {
  name: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
  memTotalMiB: 97_887,
  maxPowerW: 600,
};
const GPU_COUNT = 8;
const OUTPUT_LEN = 1000;
const SWEEP_INPUT_LEN = 1000;
/** Context lengths of the long-context scenario, in input tokens. */
export const CONTEXT_LENGTHS = [30_000, 60_000, 100_000] as const;
const SWEEP_LEVELS = [1, 2, 4, 8, 16, 32, 64, 128] as const;

/** One deployment: how it was launched and what it measured. */
interface Deployment {
  slug: string;
  name: string;
  config: Record<string, unknown>;
  /** Aggregate output tok/s by concurrency (1000 in / 1000 out). */
  outputTokPerS: Record<(typeof SWEEP_LEVELS)[number], number>;
  /** Median TTFT in ms by concurrency (1000 in). */
  ttftMs: Record<(typeof SWEEP_LEVELS)[number], number>;
  /** At C=1 by context length: median TTFT in ms and per-request decode tok/s (1000 / median TPOT). */
  longContext: Record<(typeof CONTEXT_LENGTHS)[number], { ttftMs: number; decodeTokPerS: number }>;
  /** Acceptance length τ with speculation, at C=1 (falls slowly with load). */
  acceptLength: number | null;
}

const BASE_CONFIG = {
  model: "moonshotai/Kimi-K2.6",
  engine: "sglang",
  engineVersion: "0.5.11",
  gpus: "8x RTX PRO 6000",
  memFractionStatic: 0.9,
  dataset: "random",
};

/** The three deployments compared (ordered as pushed: oldest first). */
export const DEPLOYMENTS: readonly Deployment[] = [
  {
    slug: "tp8",
    name: "Kimi K2.6 TP8",
    config: { ...BASE_CONFIG, tp: 8, ep: 1, flags: "--tp 8 --mem-fraction-static 0.9" },
    outputTokPerS: {
      1: 38.5,
      2: 72.4,
      4: 131.0,
      8: 228.3,
      16: 371.9,
      32: 540.2,
      64: 655.8,
      128: 702.1,
    },
    ttftMs: { 1: 310, 2: 332, 4: 368, 8: 441, 16: 612, 32: 985, 64: 2110, 128: 5420 },
    longContext: {
      30_000: { ttftMs: 2_910, decodeTokPerS: 36.2 },
      60_000: { ttftMs: 6_420, decodeTokPerS: 32.5 },
      100_000: { ttftMs: 12_830, decodeTokPerS: 27.9 },
    },
    acceptLength: null,
  },
  {
    slug: "ep8",
    name: "Kimi K2.6 EP8",
    config: { ...BASE_CONFIG, tp: 8, ep: 8, flags: "--tp 8 --ep 8 --mem-fraction-static 0.9" },
    outputTokPerS: {
      1: 33.1,
      2: 63.8,
      4: 121.5,
      8: 221.0,
      16: 392.4,
      32: 641.7,
      64: 861.3,
      128: 958.6,
    },
    ttftMs: { 1: 342, 2: 360, 4: 391, 8: 462, 16: 640, 32: 1_020, 64: 1_980, 128: 4_630 },
    longContext: {
      30_000: { ttftMs: 3_310, decodeTokPerS: 31.0 },
      60_000: { ttftMs: 7_290, decodeTokPerS: 27.6 },
      100_000: { ttftMs: 14_620, decodeTokPerS: 23.4 },
    },
    acceptLength: null,
  },
  {
    slug: "ep8-mtp",
    name: "Kimi K2.6 EP8 + MTP",
    config: {
      ...BASE_CONFIG,
      tp: 8,
      ep: 8,
      speculative: { algorithm: "NEXTN", numSteps: 3, eagleTopk: 1, numDraftTokens: 4 },
      flags:
        "--tp 8 --ep 8 --speculative-algorithm NEXTN --speculative-num-steps 3 --mem-fraction-static 0.9",
    },
    outputTokPerS: {
      1: 61.4,
      2: 114.9,
      4: 208.2,
      8: 352.7,
      16: 545.3,
      32: 772.0,
      64: 902.4,
      128: 941.0,
    },
    ttftMs: { 1: 355, 2: 371, 4: 405, 8: 480, 16: 668, 32: 1_070, 64: 2_090, 128: 4_910 },
    longContext: {
      30_000: { ttftMs: 3_360, decodeTokPerS: 55.8 },
      60_000: { ttftMs: 7_410, decodeTokPerS: 48.1 },
      100_000: { ttftMs: 14_830, decodeTokPerS: 39.6 },
    },
    acceptLength: 2.81,
  },
];

const r1 = (v: number) => Math.round(v * 10) / 10;
const r2 = (v: number) => Math.round(v * 100) / 100;

/**
 * A point as SGLang `bench_serving` would report it for `completed` requests of `inputLen` in /
 * 1000 out at `concurrency`, from the aggregate output rate and the median TTFT (ms):
 * every request takes C × 1000 / aggregate seconds end to end, TPOT = (E2E − TTFT) / 999.
 * `raw` carries the token totals (so a projection's default output length is measured).
 */
function point(
  key: string,
  ord: number,
  scenario: "throughput" | "long-context",
  concurrency: number,
  inputLen: number,
  outputTokPerS: number,
  ttftMs: number,
  completed: number,
  acceptLength: number | null,
  rng: Rng,
): BenchmarkPointInput & { durationS: number } {
  const noisyTtft = ttftMs * (1 + 0.02 * gaussian(rng));
  const durationS = (completed * OUTPUT_LEN) / outputTokPerS;
  const e2eMs = ((concurrency * OUTPUT_LEN) / outputTokPerS) * 1000;
  const tpotMs = Math.max(1, (e2eMs - noisyTtft) / (OUTPUT_LEN - 1));
  return {
    key,
    ord,
    scenario,
    dataset: "random",
    concurrency,
    measuredConcurrency: r2(concurrency * (0.97 + 0.02 * rng())),
    requestRateUnbounded: true,
    inputLen,
    outputLen: OUTPUT_LEN,
    completed,
    failed: 0,
    durationS: r2(durationS),
    requestThroughput: Math.round((completed / durationS) * 1000) / 1000,
    outputTokPerS,
    totalTokPerS: r1(((inputLen + OUTPUT_LEN) * completed) / durationS),
    ttftMsMean: r1(noisyTtft * 1.04),
    ttftMsMedian: r1(noisyTtft),
    ttftMsP99: r1(noisyTtft * (scenario === "long-context" ? 1.12 : concurrency >= 64 ? 2.1 : 1.6)),
    tpotMsMean: r2(tpotMs * 1.01),
    tpotMsMedian: r2(tpotMs),
    tpotMsP99: r2(tpotMs * 1.22),
    itlMsMean: r2(tpotMs * (acceptLength ?? 1) * 1.02),
    itlMsMedian: r2(tpotMs * (acceptLength ?? 1)),
    itlMsP99: r2(tpotMs * (acceptLength ?? 1) * 1.8),
    e2eMsMean: r1(e2eMs * 1.01),
    e2eMsMedian: r1(e2eMs),
    e2eMsP99: r1(e2eMs * 1.12),
    acceptLength: acceptLength === null ? null : r2(acceptLength),
    raw: {
      backend: "sglang",
      dataset_name: "random",
      random_input_len: inputLen,
      random_output_len: OUTPUT_LEN,
      max_concurrency: concurrency,
      num_prompts: completed,
      total_input_tokens: inputLen * completed,
      total_output_tokens: OUTPUT_LEN * completed,
    },
  };
}

/**
 * A long-context level at `concurrency`: C=1 as measured; C=4 queues prefills (TTFT × 1.9) and
 * shares decode (per request × 0.82). Aggregate output tok/s = C × 1000 / E2E.
 */
function longContextPoint(
  d: Deployment,
  inputLen: (typeof CONTEXT_LENGTHS)[number],
  concurrency: 1 | 4,
  ord: number,
  rng: Rng,
  keyPrefix = "long-context",
) {
  const base = d.longContext[inputLen];
  const ttftMs = base.ttftMs * (concurrency === 4 ? 1.9 : 1);
  const decode = base.decodeTokPerS * (concurrency === 4 ? 0.82 : 1);
  const e2eS = ttftMs / 1000 + OUTPUT_LEN / decode;
  const outputTokPerS = r1((concurrency * OUTPUT_LEN) / e2eS);
  const accept = d.acceptLength === null ? null : d.acceptLength - 0.12 * (inputLen / 100_000);
  return point(
    `${keyPrefix}-c${concurrency}-${inputLen / 1000}k`,
    ord,
    "long-context",
    concurrency,
    inputLen,
    outputTokPerS,
    ttftMs,
    8 * concurrency,
    accept,
    rng,
  );
}

/** Every point of one finished comparison run: the sweep, then the long-context levels at C=1. */
export function deploymentPoints(
  d: Deployment,
  rng: Rng,
): Array<BenchmarkPointInput & { durationS: number }> {
  const sweep = SWEEP_LEVELS.map((c, i) =>
    point(
      `throughput-c${c}`,
      i,
      "throughput",
      c,
      SWEEP_INPUT_LEN,
      d.outputTokPerS[c],
      d.ttftMs[c],
      Math.max(10, 4 * c),
      d.acceptLength === null ? null : d.acceptLength - 0.05 * Math.log2(c),
      rng,
    ),
  );
  const long = CONTEXT_LENGTHS.map((len, i) =>
    longContextPoint(d, len, 1, SWEEP_LEVELS.length + i, rng),
  );
  return [...sweep, ...long];
}

interface LiveLevel {
  concurrency: 1 | 4;
  inputLen: (typeof CONTEXT_LENGTHS)[number];
}
const LIVE_LEVELS: LiveLevel[] = ([1, 4] as const).flatMap((concurrency) =>
  CONTEXT_LENGTHS.map((inputLen) => ({ concurrency, inputLen })),
);

/** See the module comment. */
export class DeploymentsDemo implements DemoWorker {
  private socket: PitwallSocket | null = null;
  private readonly liveKey: string;
  private readonly live = DEPLOYMENTS[2]!;
  private level = 0;
  private current: ReturnType<typeof longContextPoint> | null = null;
  private elapsedS = 0;
  private simS = 0;
  private done = false;

  constructor(private readonly ctx: DemoContext) {
    this.liveKey = `${ctx.keyPrefix}-kimi-long-context`;
  }

  async start(): Promise<void> {
    const socket = this.ctx.connect("kpro6", "bench");
    this.socket = socket;
    socket.send({ type: "hello", client: "pitwall-demo", workerId: "bench" });
    const now = this.ctx.now();
    // Finished runs of the last three days, a day apart, each taking its real benchmark time.
    DEPLOYMENTS.forEach((d, i) => {
      const run = `${this.ctx.keyPrefix}-kimi-${d.slug}`;
      const startedAt = now - (3 - i) * 86_400_000;
      const points = deploymentPoints(d, this.ctx.rng);
      const endedAt = startedAt + Math.round(points.reduce((s, p) => s + p.durationS, 0) * 1000);
      socket.send({
        type: "run.start",
        run,
        name: `${d.name} · sweep + long context`,
        kind: "benchmark",
        startedAt,
        tags: ["kimi", "deployment", "demo"],
        config: {
          ...d.config,
          inputLen: SWEEP_INPUT_LEN,
          outputLen: OUTPUT_LEN,
          longContextInputLens: [...CONTEXT_LENGTHS],
        },
      });
      socket.send({ type: "run.benchmark", run, points });
      socket.send({ type: "run.end", run, status: "succeeded", endedAt });
    });
    socket.send({
      type: "run.start",
      run: this.liveKey,
      name: `${this.live.name} · long context 30K/60K/100K`,
      kind: "benchmark",
      startedAt: now,
      total: LIVE_LEVELS.length,
      unit: "levels",
      tags: ["kimi", "long-context", "demo"],
      config: {
        ...this.live.config,
        outputLen: OUTPUT_LEN,
        longContextInputLens: [...CONTEXT_LENGTHS],
      },
    });
    this.current = this.nextPoint();
    await socket.flush(30_000);
    this.ctx.note(
      "deployments: three Kimi K2.6 runs on kpro6 (TP8, EP8, EP8 + MTP) to compare; a long-context run starts",
    );
  }

  private nextPoint(): ReturnType<typeof longContextPoint> | null {
    const l = LIVE_LEVELS[this.level];
    return l
      ? longContextPoint(this.live, l.inputLen, l.concurrency, this.level, this.ctx.rng, "live")
      : null;
  }

  tick(simDtS: number, nowMs: number): void {
    this.simS += simDtS;
    const socket = this.socket;
    if (!socket || this.done) return;
    this.elapsedS += simDtS;
    while (this.current && this.elapsedS >= this.current.durationS) {
      this.elapsedS -= this.current.durationS;
      socket.send({ type: "run.benchmark", run: this.liveKey, points: [this.current] });
      this.level++;
      socket.send({
        type: "run.progress",
        run: this.liveKey,
        workerId: "bench",
        bootId: "kpro6-bench",
        ts: nowMs,
        done: this.level,
        total: LIVE_LEVELS.length,
        unit: "levels",
      });
      this.current = this.nextPoint();
    }
    if (!this.current) {
      this.done = true;
      socket.send({ type: "run.end", run: this.liveKey, status: "succeeded", endedAt: nowMs });
      this.ctx.note(
        "deployments: the long-context run finished (TTFT and decode tok/s by context length)",
      );
    }
  }

  async stop(): Promise<void> {
    if (!this.done)
      this.socket?.send({
        type: "run.end",
        run: this.liveKey,
        status: "cancelled",
        error: "the demo was stopped",
        endedAt: this.ctx.now(),
      });
    this.done = true;
  }

  gpus(rng: Rng): GpuReading[] {
    // Prefill of a long prompt keeps the GPUs busier than the decode after it.
    const ttftMs = this.current?.ttftMsMedian;
    const util =
      this.done || !this.current
        ? 0
        : typeof ttftMs === "number" && this.elapsedS % 60 < ttftMs / 1000
          ? 96
          : 71;
    // SGLang keeps --mem-fraction-static of each GPU allocated while it serves.
    return Array.from({ length: GPU_COUNT }, (_, index) =>
      gpuReading(rng, { index, ...GPU }, util, GPU.memTotalMiB * 0.9),
    );
  }

  summary(): string {
    return `deployments [${simClock(this.simS)}]: ${this.done ? "long-context run done" : `long-context ${this.level} / ${LIVE_LEVELS.length} levels`}`;
  }
}
