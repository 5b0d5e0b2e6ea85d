import { randomUUID } from "node:crypto";

import type { PitwallSocket } from "@/lib/client";

import { gpuReading, type DemoContext, type DemoWorker, type GpuReading } from "./context";
import { SWEEP_CONCURRENCY, sweepPoint } from "./curves";
import { simClock, type Rng } from "./rng";

/**
 * The benchmark sweeps on `ws-a6000`: SGLang 0.5.11 serving Qwen3.6-27B with TP=2 and MTP
 * (NEXTN) speculation on 2x A6000; a `bench_serving` throughput sweep over C = 1, 2, 4, …, 128
 * (1000 in / 1000 out), pushed point by point as each level finishes (a level takes its real
 * simulated duration), then `run.end`. After a pause of two simulated hours the next sweep
 * starts with the other `--mem-fraction-static`, so a long-running demo keeps comparing runs.
 */

const VARIANTS = [
  { memFractionStatic: 0.88, scale: 1 },
  { memFractionStatic: 0.85, scale: 0.962 },
] as const;
const PAUSE_S = 2 * 3600;
const GPU = { name: "NVIDIA RTX A6000", memTotalMiB: 49_140, maxPowerW: 300 };

interface Sweep {
  key: string;
  number: number;
  scale: number;
  /** Index of the level running now (= levels done). */
  level: number;
  /** The running level's result, fixed when it starts and reported once it has run. */
  point: ReturnType<typeof sweepPoint> | null;
  elapsedS: number;
  peak: number;
}

/** See the module comment. */
export class BenchmarkDemo implements DemoWorker {
  private socket: PitwallSocket | null = null;
  private readonly bootId = randomUUID();
  private sweep: Sweep | null = null;
  private sweeps = 0;
  private pauseLeftS = 0;
  private sinceProgressS = 0;
  private simS = 0;
  /** Key of the first sweep (tests look for it). */
  readonly firstKey: string;

  constructor(private readonly ctx: DemoContext) {
    this.firstKey = `${ctx.keyPrefix}-sweep-1`;
  }

  async start(): Promise<void> {
    const socket = this.ctx.connect("ws-a6000", "bench");
    this.socket = socket;
    socket.send({ type: "hello", client: "pitwall-demo", workerId: "bench" });
    this.startSweep(this.ctx.now());
    await socket.flush(30_000);
  }

  private startSweep(nowMs: number): void {
    const number = ++this.sweeps;
    const variant = VARIANTS[(number - 1) % VARIANTS.length]!;
    const key = number === 1 ? this.firstKey : `${this.ctx.keyPrefix}-sweep-${number}`;
    this.sweep = {
      key,
      number,
      scale: variant.scale,
      level: 0,
      point: sweepPoint(SWEEP_CONCURRENCY[0], 0, variant.scale, this.ctx.rng),
      elapsedS: 0,
      peak: 0,
    };
    this.socket?.send({
      type: "run.start",
      run: key,
      name: `Qwen3.6-27B TP2 MTP sweep #${number} · mem ${variant.memFractionStatic}`,
      kind: "benchmark",
      startedAt: nowMs,
      total: SWEEP_CONCURRENCY.length,
      unit: "levels",
      tags: ["sweep", "mtp", "demo"],
      config: {
        model: "Qwen/Qwen3.6-27B",
        engine: "sglang",
        engineVersion: "0.5.11",
        tp: 2,
        gpus: "2x RTX A6000",
        speculative: { algorithm: "NEXTN", numSteps: 3, eagleTopk: 1, numDraftTokens: 4 },
        memFractionStatic: variant.memFractionStatic,
        // Every repeat of this sweep shares one id: the run list folds them into one row.
        sweep: "qwen3.6-27b-tp2-mtp",
        dataset: "random",
        inputLen: 1000,
        outputLen: 1000,
        flags: `--tp 2 --speculative-algorithm NEXTN --mem-fraction-static ${variant.memFractionStatic}`,
      },
    });
  }

  tick(simDtS: number, nowMs: number): void {
    const socket = this.socket;
    if (!socket) return;
    this.simS += simDtS;
    if (!this.sweep) {
      this.pauseLeftS -= simDtS;
      if (this.pauseLeftS <= 0) this.startSweep(nowMs);
      return;
    }
    const sweep = this.sweep;
    sweep.elapsedS += simDtS;
    this.sinceProgressS += simDtS;
    let pushed = false;
    while (sweep.point && sweep.elapsedS >= sweep.point.durationS) {
      const point = sweep.point;
      sweep.elapsedS -= point.durationS;
      sweep.level++;
      const next = SWEEP_CONCURRENCY[sweep.level];
      sweep.point =
        next === undefined ? null : sweepPoint(next, sweep.level, sweep.scale, this.ctx.rng);
      sweep.peak = Math.max(sweep.peak, point.outputTokPerS as number);
      socket.send({ type: "run.benchmark", run: sweep.key, points: [point] });
      pushed = true;
      if (sweep.number === 1 && sweep.level === 1)
        this.ctx.note(
          "benchmark: first sweep point in (C=1); the tok/s chart grows point by point",
        );
    }
    if (pushed || this.sinceProgressS >= 600) {
      this.sinceProgressS = 0;
      socket.send({
        type: "run.progress",
        run: sweep.key,
        workerId: "bench",
        bootId: this.bootId,
        ts: nowMs,
        done: sweep.level,
        total: SWEEP_CONCURRENCY.length,
        unit: "levels",
      });
    }
    if (sweep.level >= SWEEP_CONCURRENCY.length) {
      socket.send({
        type: "run.event",
        run: sweep.key,
        ts: nowMs,
        message: `sweep finished: peak ${sweep.peak.toFixed(1)} tok/s output, ${SWEEP_CONCURRENCY.length} levels`,
      });
      socket.send({ type: "run.end", run: sweep.key, status: "succeeded", endedAt: nowMs });
      if (sweep.number === 1)
        this.ctx.note(
          `benchmark: sweep #1 finished (peak ${sweep.peak.toFixed(1)} tok/s); the next one starts in ${PAUSE_S / 3600} simulated hours`,
        );
      this.sweep = null;
      this.pauseLeftS = PAUSE_S;
    }
  }

  async stop(): Promise<void> {
    const sweep = this.sweep;
    this.sweep = null;
    if (sweep)
      this.socket?.send({
        type: "run.end",
        run: sweep.key,
        status: "cancelled",
        error: "the demo was stopped",
        endedAt: this.ctx.now(),
      });
  }

  gpus(rng: Rng): GpuReading[] {
    const c = this.sweep ? SWEEP_CONCURRENCY[this.sweep.level] : undefined;
    const util = c === undefined ? 0 : Math.min(97, 38 + 9 * Math.log2(c));
    // SGLang keeps --mem-fraction-static of each GPU allocated while it serves, busy or not.
    return [0, 1].map((index) => gpuReading(rng, { index, ...GPU }, util, GPU.memTotalMiB * 0.88));
  }

  summary(): string {
    const s = this.sweep;
    return `benchmark [${simClock(this.simS)}]: ${s ? `sweep #${s.number}, ${s.level} / ${SWEEP_CONCURRENCY.length} levels` : "idle between sweeps"}`;
  }
}
