import { randomUUID } from "node:crypto";

import type { PitwallSocket } from "@/lib/client";
import type { MetricPointInput } from "@/lib/protocol";

import {
  checkpointPrefix,
  gpuReading,
  type DemoContext,
  type DemoWorker,
  type GpuReading,
} from "./context";
import { gradNorm, learningRate, trainingLoss, type TrainingSchedule } from "./curves";
import { simClock, type Rng } from "./rng";

/**
 * The training run: a DFlash drafter (block size 16) for Qwen3.6-27B on 4 GPUs of `ct129`.
 * Logs `loss`, `lr` and `grad_norm` every 10 steps (one `run.metrics` frame per real second),
 * pushes progress in steps, and uploads a checkpoint every 30 simulated minutes (`run.artifact`
 * kind checkpoint + `run.event`). The loss is NaN once, at step 1730.
 */

const SCHEDULE: TrainingSchedule = {
  totalSteps: 24_000,
  warmupSteps: 400,
  peakLr: 3e-4,
  minLr: 3e-5,
};
const STEP_TIME_S = 1.5;
const LOG_EVERY = 10;
const CHECKPOINT_EVERY_S = 30 * 60;
const CHECKPOINT_EVERY = CHECKPOINT_EVERY_S / STEP_TIME_S;
const NAN_STEP = 1730;
const GPU = { name: "NVIDIA A100-SXM4-80GB", memTotalMiB: 81_920, maxPowerW: 400 };

/** See the module comment. */
export class TrainingDemo implements DemoWorker {
  readonly key: string;
  private readonly uploaded: Array<{ step: number; uri: string }> = [];
  private socket: PitwallSocket | null = null;
  private readonly bootId = randomUUID();
  private simS = 0;
  private step = 0;
  private lastLogged = 0;
  private lastCheckpoint = 0;
  private ended = false;

  private readonly ckptPrefix: string;

  constructor(private readonly ctx: DemoContext) {
    this.key = `${ctx.keyPrefix}-train`;
    this.ckptPrefix = checkpointPrefix(ctx, "run7");
  }

  async start(): Promise<void> {
    const socket = this.ctx.connect("ct129", "trainer");
    this.socket = socket;
    socket.send({ type: "hello", client: "pitwall-demo", workerId: "rank0" });
    socket.send({
      type: "run.start",
      run: this.key,
      name: "DFlash drafter b16 · Qwen3.6-27B · run 7",
      kind: "training",
      startedAt: this.ctx.now(),
      total: SCHEDULE.totalSteps,
      unit: "steps",
      tags: ["dflash", "drafter", "demo"],
      config: {
        model: "dflash-drafter-b16",
        targetModel: "Qwen/Qwen3.6-27B",
        blockSize: 16,
        gpus: "4x A100 80GB",
        dp: 4,
        batchSize: 64,
        peakLr: SCHEDULE.peakLr,
        minLr: SCHEDULE.minLr,
        warmupSteps: SCHEDULE.warmupSteps,
        schedule: "cosine",
        checkpointEveryMin: CHECKPOINT_EVERY_S / 60,
        checkpoints: this.ckptPrefix,
      },
    });
    socket.send({
      type: "run.event",
      run: this.key,
      message: `training started: ${SCHEDULE.totalSteps.toLocaleString("en-US")} steps, checkpoint every ${CHECKPOINT_EVERY_S / 60} min to ${this.ckptPrefix}`,
    });
    await socket.flush(30_000);
  }

  tick(simDtS: number, nowMs: number): void {
    const socket = this.socket;
    if (this.ended || !socket) return;
    this.simS += simDtS;
    this.step = Math.min(SCHEDULE.totalSteps, Math.floor(this.simS / STEP_TIME_S));
    const points: MetricPointInput[] = [];
    for (let s = this.lastLogged + LOG_EVERY; s <= this.step; s += LOG_EVERY) {
      const nan = s === NAN_STEP;
      points.push(
        {
          key: "loss",
          step: s,
          value: nan ? Number.NaN : trainingLoss(s, this.ctx.rng),
          ts: nowMs,
        },
        { key: "lr", step: s, value: learningRate(s, SCHEDULE), ts: nowMs },
        {
          key: "grad_norm",
          step: s,
          value: nan ? Number.POSITIVE_INFINITY : gradNorm(s, this.ctx.rng),
          ts: nowMs,
        },
      );
      if (nan) {
        socket.send({
          type: "run.event",
          run: this.key,
          level: "warn",
          ts: nowMs,
          message: `loss is NaN at step ${s} (grad_norm inf): the NaN guard skipped the batch; training continues`,
        });
        this.ctx.note(`training: loss hit NaN at step ${s} (the chart marks it)`);
      }
      this.lastLogged = s;
    }
    if (points.length) socket.send({ type: "run.metrics", run: this.key, points });
    socket.send({
      type: "run.progress",
      run: this.key,
      workerId: "rank0",
      bootId: this.bootId,
      ts: nowMs,
      done: this.step,
      total: SCHEDULE.totalSteps,
      unit: "steps",
    });

    while (this.lastCheckpoint + CHECKPOINT_EVERY <= this.step) {
      this.lastCheckpoint += CHECKPOINT_EVERY;
      const step = this.lastCheckpoint;
      const uri = `${this.ckptPrefix}/checkpoint-${String(step).padStart(6, "0")}/`;
      const sizeBytes = Math.round(9.31e9 + this.ctx.rng() * 2e6);
      socket.send({
        type: "run.artifact",
        run: this.key,
        kind: "checkpoint",
        uri,
        sizeBytes,
        step,
        ts: nowMs,
      });
      this.uploaded.push({ step, uri });
      socket.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `checkpoint-${step} uploaded to ${uri} (${(sizeBytes / 1e9).toFixed(1)} GB)`,
      });
      if (step === CHECKPOINT_EVERY)
        this.ctx.note(`training: first checkpoint uploaded (step ${step})`);
    }

    if (this.step >= SCHEDULE.totalSteps) {
      this.ended = true;
      socket.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `training finished at step ${this.step}`,
      });
      socket.send({ type: "run.end", run: this.key, status: "succeeded", endedAt: nowMs });
      this.ctx.note("training finished");
    }
  }

  /** True once training has ended (finished or the demo stopped). */
  finished(): boolean {
    return this.ended;
  }

  /** Checkpoints uploaded so far, oldest first (the eval demo scores them). */
  checkpoints(): ReadonlyArray<{ step: number; uri: string }> {
    return this.uploaded;
  }

  async stop(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.socket?.send({
      type: "run.end",
      run: this.key,
      status: "cancelled",
      error: "the demo was stopped",
      endedAt: this.ctx.now(),
    });
  }

  gpus(rng: Rng): GpuReading[] {
    const busy = !this.ended;
    return [0, 1, 2, 3].map((index) =>
      gpuReading(rng, { index, ...GPU }, busy ? 98 : 0, busy ? 74_650 : 0),
    );
  }

  summary(): string {
    return `training [${simClock(this.simS)}]: ${this.ended ? "ended" : `step ${this.step.toLocaleString("en-US")} / ${SCHEDULE.totalSteps.toLocaleString("en-US")}`}`;
  }
}
