import { randomUUID } from "node:crypto";

import type { PitwallSocket } from "@/lib/client";

import { gpuReading, type DemoContext, type DemoWorker, type GpuReading } from "./context";
import { ExtractionModel } from "./extraction-model";
import { simClock, type Rng } from "./rng";

/**
 * The extraction run: 914,000 samples on 4 GPU workers of `kpro5` (gpu0..gpu3), each its own
 * worker connection, as separate processes would be. Each worker pushes `run.progress` once per
 * real second with its S3 counters; failed uploads become `warn` events, uploaded shards become
 * artifacts. gpu2 crashes after 20 simulated minutes and comes back 8 simulated minutes later
 * under a new boot id.
 */

const WORKERS = ["gpu0", "gpu1", "gpu2", "gpu3"];
const TOTAL_SAMPLES = 914_000;
const SAMPLE_BYTES = 1_100_000;
const BUCKET = "s3://dflash-hidden-states/qwen3.6-27b/extract-914k";
const CRASH_WORKER = "gpu2";
const CRASH_AT_S = 20 * 60;
const DOWN_FOR_S = 8 * 60;
/** Samples the crashed process wrote but never reported; its resume scan finds them. */
const FOUND_ON_RESUME = 1536;
const MILESTONE = 100_000;
const BACKLOG_WARN_FILES = 5000;
const BACKLOG_CLEAR_FILES = 500;
/** Offset between the workers' pushes within a tick, real ms. */
const STAGGER_MS = 240;
const GPU = {
  name: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
  memTotalMiB: 97_887,
  maxPowerW: 600,
};

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
const count = (n: number) => n.toLocaleString("en-US");

/** See the module comment. */
export class ExtractionDemo implements DemoWorker {
  readonly key: string;
  readonly model: ExtractionModel;
  private readonly sockets = new Map<string, PitwallSocket>();
  private crashed = false;
  private resumed = false;
  /** No more ticks: finished, or stopped. */
  private ended = false;
  private stopped = false;
  private endSent = false;
  private nextMilestone = MILESTONE;
  private backlogWarned = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly ctx: DemoContext) {
    this.key = `${ctx.keyPrefix}-extract`;
    this.model = new ExtractionModel({
      workers: WORKERS,
      totalSamples: TOTAL_SAMPLES,
      samplesPerS: 2,
      sampleBytes: SAMPLE_BYTES,
      maxInflight: 100,
      diskTotalBytes: 3_840_000_000_000,
      diskFreeBytes: 64_000_000_000,
      uploadPeriodS: 2 * 3600,
      shardSamples: 2500,
      rng: ctx.rng,
      newBootId: () => randomUUID(),
    });
  }

  async start(): Promise<void> {
    for (const id of WORKERS) this.connect(id);
    // Every worker process sends the same run.start (re-sends upsert); wait for all of them so no
    // progress can reach the server before its run exists.
    const startedAt = this.ctx.now();
    for (const socket of this.sockets.values()) {
      socket.send({
        type: "run.start",
        run: this.key,
        name: "Hidden states · Qwen3.6-27B · 914K samples",
        kind: "extraction",
        startedAt,
        total: TOTAL_SAMPLES,
        unit: "samples",
        tags: ["dflash", "extraction", "demo"],
        config: {
          model: "Qwen/Qwen3.6-27B",
          layers: [16, 32, 48, 63],
          dataset: "dflash-mix-914k",
          gpus: "4x RTX PRO 6000",
          sampleBytes: SAMPLE_BYTES,
          s3: { bucket: BUCKET, maxInflight: 100 },
          deleteAfterUpload: true,
        },
      });
    }
    this.socket("gpu0")?.send({
      type: "run.event",
      run: this.key,
      message: `extraction started: ${count(TOTAL_SAMPLES)} samples on ${WORKERS.length} GPUs, uploads to ${BUCKET} (at most 100 in flight), local files deleted after upload`,
    });
    await Promise.all([...this.sockets.values()].map((s) => s.flush(30_000)));
  }

  tick(simDtS: number, nowMs: number): void {
    if (this.ended) return;
    const m = this.model;
    for (const h of m.advance(simDtS)) {
      const socket = this.socket(h.worker);
      if (h.type === "upload-failed") {
        socket?.send({
          type: "run.event",
          run: this.key,
          level: "warn",
          ts: nowMs,
          message: `${h.worker}: upload of sample-${String(h.sample).padStart(7, "0")}.safetensors failed: 503 SlowDown (S3 latency ${h.latencyS.toFixed(0)} s); retrying`,
        });
      } else {
        socket?.send({
          type: "run.artifact",
          run: this.key,
          kind: "upload",
          uri: `${BUCKET}/${h.worker}/shard-${String(h.shard).padStart(5, "0")}.tar`,
          sizeBytes: h.sizeBytes,
          ts: nowMs,
        });
      }
    }
    this.restartScript(nowMs);

    // Separate processes are not in lockstep: each worker pushes at its own offset in the second.
    m.readings().forEach((r, i) => {
      this.later(i * STAGGER_MS, () => {
        this.socket(r.workerId)?.send({
          type: "run.progress",
          run: this.key,
          workerId: r.workerId,
          bootId: r.bootId,
          ts: nowMs + i * STAGGER_MS,
          done: r.done,
          total: r.total,
          unit: "samples",
          counters: r.counters,
        });
      });
    });

    const lead = this.socket("gpu0");
    const done = m.done;
    if (done >= this.nextMilestone) {
      lead?.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `${count(this.nextMilestone)} / ${count(TOTAL_SAMPLES)} samples extracted (${((100 * this.nextMilestone) / TOTAL_SAMPLES).toFixed(1)} %)`,
      });
      this.nextMilestone += MILESTONE;
    }
    const backlog = m.localFiles;
    if (!this.backlogWarned && backlog >= BACKLOG_WARN_FILES) {
      this.backlogWarned = true;
      lead?.send({
        type: "run.event",
        run: this.key,
        level: "warn",
        ts: nowMs,
        message: `S3 is slower than extraction: ${count(backlog)} files (${gb(backlog * SAMPLE_BYTES)}) wait on local disk with ${m.inflight} uploads in flight; ${gb(m.diskFreeBytes)} free`,
      });
      this.ctx.note(
        `extraction: S3 is throttling, the local backlog grows (${count(backlog)} files); watch disk.freeBytes shrink`,
      );
    } else if (this.backlogWarned && backlog <= BACKLOG_CLEAR_FILES) {
      this.backlogWarned = false;
      lead?.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `upload backlog drained: ${count(backlog)} files local, ${gb(m.diskFreeBytes)} free`,
      });
    }

    if (m.finished) {
      this.ended = true;
      const bytes = m.workers.reduce((n, w) => n + w.uploadedAllBoots, 0) * SAMPLE_BYTES;
      // After the workers' last (staggered) progress pushes.
      this.later(WORKERS.length * STAGGER_MS, () => {
        lead?.send({
          type: "run.event",
          run: this.key,
          message: `extraction finished: ${count(TOTAL_SAMPLES)} samples, about ${gb(bytes)} in ${BUCKET}`,
        });
        this.sendEnd("succeeded");
      });
      this.ctx.note("extraction finished");
    }
  }

  /** gpu2 dies after 20 simulated minutes and its restarted process resumes 8 minutes later. */
  private restartScript(nowMs: number): void {
    const m = this.model;
    if (!this.crashed && m.simS >= CRASH_AT_S) {
      this.crashed = true;
      const socket = this.socket(CRASH_WORKER);
      socket?.send({
        type: "run.event",
        run: this.key,
        level: "error",
        ts: nowMs,
        message: `${CRASH_WORKER}: RuntimeError: CUDA error: an illegal memory access was encountered (process exited with code 1; the supervisor restarts it)`,
      });
      m.crash(CRASH_WORKER);
      this.sockets.delete(CRASH_WORKER);
      // The process is gone: whatever it had not sent yet is lost (it had no spool).
      void socket
        ?.flush(2000)
        .catch(() => undefined)
        .then(() => socket.close());
      this.ctx.note(
        `extraction: worker ${CRASH_WORKER} crashed; it restarts in ${DOWN_FOR_S / 60} simulated minutes with a new boot id`,
      );
    } else if (this.crashed && !this.resumed && m.simS >= CRASH_AT_S + DOWN_FOR_S) {
      this.resumed = true;
      m.resume(CRASH_WORKER, FOUND_ON_RESUME);
      const w = m.worker(CRASH_WORKER);
      const socket = this.connect(CRASH_WORKER);
      socket.send({
        type: "run.event",
        run: this.key,
        ts: nowMs,
        message: `${CRASH_WORKER} restarted (boot ${w.bootId.slice(0, 8)}): resume scan found ${count(FOUND_ON_RESUME)} finished samples on disk; continuing at ${count(w.done)} and re-uploading ${count(w.queued)} local files`,
      });
      this.ctx.note(
        `extraction: worker ${CRASH_WORKER} is back (new boot id, counters from 0, done jumped ahead by ${count(FOUND_ON_RESUME)})`,
      );
    }
  }

  /** Runs `fn` after `ms` real ms unless the run ended meanwhile. */
  private later(ms: number, fn: () => void): void {
    if (ms <= 0) return fn();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(timer);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.ended = true;
    this.sendEnd(this.model.finished ? "succeeded" : "cancelled");
  }

  private sendEnd(status: "succeeded" | "cancelled"): void {
    if (this.endSent) return;
    this.endSent = true;
    this.socket("gpu0")?.send({
      type: "run.end",
      run: this.key,
      status,
      error: status === "cancelled" ? "the demo was stopped" : undefined,
      endedAt: this.ctx.now(),
    });
  }

  gpus(rng: Rng): GpuReading[] {
    return this.model.workers.map((w, index) => {
      const busy = w.up && w.done < w.total;
      return gpuReading(rng, { index, ...GPU }, busy ? 96 : 0, w.up ? (busy ? 71_400 : 1_200) : 0);
    });
  }

  summary(): string {
    const m = this.model;
    const state = this.ended
      ? m.finished
        ? "finished"
        : "stopped"
      : `${count(m.done)} / ${count(TOTAL_SAMPLES)} samples, ${m.inflight} uploads in flight, ${gb(m.diskFreeBytes)} free`;
    return `extraction [${simClock(m.simS)}]: ${state}`;
  }

  private connect(workerId: string): PitwallSocket {
    const socket = this.ctx.connect("kpro5", workerId);
    socket.send({ type: "hello", client: "pitwall-demo", workerId });
    this.sockets.set(workerId, socket);
    return socket;
  }

  private socket(workerId: string): PitwallSocket | undefined {
    return this.sockets.get(workerId);
  }
}
