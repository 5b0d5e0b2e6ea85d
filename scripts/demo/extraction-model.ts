import { gaussian, type Rng } from "./rng";

/**
 * The simulated hidden-state extraction, as a pure state machine in simulated seconds (no I/O, no
 * clock): GPU workers extract samples (~1.1 MB each) onto a shared local scratch disk; an upload
 * pool with at most `maxInflight` uploads across the whole run sends them to S3, and a file is
 * deleted locally only after its upload succeeded. S3 throughput swings slowly around the
 * extraction rate, so the local backlog (and the disk's free space) first grows, then drains.
 * A worker can crash (its in-flight uploads are lost, its files stay on disk) and resume under a
 * new boot id with per-boot counters from 0 and `done` jumping ahead.
 */

/** Settings of {@link ExtractionModel}; rates and times are simulated. */
export interface ExtractionOptions {
  /** Worker ids, e.g. gpu0..gpu3. */
  workers: string[];
  /** Samples in the whole run, split evenly over the workers. */
  totalSamples: number;
  /** Extraction rate per worker, samples per simulated second. */
  samplesPerS: number;
  /** Mean size of one sample file in bytes (each varies ±10 %). */
  sampleBytes: number;
  /** Uploads in flight across the run at most. */
  maxInflight: number;
  /** Local scratch disk size and its free space before the run, in bytes. */
  diskTotalBytes: number;
  diskFreeBytes: number;
  /** Period of the S3 throughput swing, simulated seconds. */
  uploadPeriodS: number;
  /** Samples per uploaded shard (an artifact is reported per shard). */
  shardSamples: number;
  rng: Rng;
  /** A fresh boot id (a uuid per worker process). */
  newBootId: () => string;
}

/** One worker's state; `uploaded`, `bytes`, `failed`, `deleted` count since its current boot. */
export interface ExtractionWorker {
  id: string;
  bootId: string;
  up: boolean;
  /** Samples extracted by this worker (absolute, across boots). */
  done: number;
  total: number;
  uploaded: number;
  bytes: number;
  failed: number;
  deleted: number;
  /** Local files waiting for an upload slot. */
  queued: number;
  inflight: number;
  /** Uploaded files not deleted yet (deleted on the next simulated second). */
  toDelete: number;
  /** Uploads over all boots (drives shard numbering). */
  uploadedAllBoots: number;
  shards: number;
  boots: number;
  prodAcc: number;
  compAcc: number;
}

/** Something worth a `run.event` or `run.artifact`, produced while advancing. */
export type ExtractionHappening =
  | { type: "upload-failed"; worker: string; sample: number; latencyS: number }
  | { type: "shard-uploaded"; worker: string; shard: number; samples: number; sizeBytes: number };

/** One `run.progress` reading of a worker that is up. */
export interface ExtractionReading {
  workerId: string;
  bootId: string;
  done: number;
  total: number;
  counters: Record<string, number>;
}

/** See the module comment. */
export class ExtractionModel {
  readonly workers: ExtractionWorker[];
  /** Simulated seconds since the run started. */
  simS = 0;
  /** Current S3 upload latency per object in seconds (with `maxInflight` uploads in flight). */
  latencyS = 0;
  private readonly baseUsedBytes: number;

  constructor(private readonly opts: ExtractionOptions) {
    const share = Math.floor(opts.totalSamples / opts.workers.length);
    this.workers = opts.workers.map((id, i) => ({
      id,
      bootId: opts.newBootId(),
      up: true,
      done: 0,
      // The last worker takes the remainder, so the shares add up to the run total.
      total:
        i === opts.workers.length - 1
          ? opts.totalSamples - share * (opts.workers.length - 1)
          : share,
      uploaded: 0,
      bytes: 0,
      failed: 0,
      deleted: 0,
      queued: 0,
      inflight: 0,
      toDelete: 0,
      uploadedAllBoots: 0,
      shards: 0,
      boots: 1,
      prodAcc: 0,
      compAcc: 0,
    }));
    this.baseUsedBytes = opts.diskTotalBytes - opts.diskFreeBytes;
    this.latencyS = this.latencyAt(0);
  }

  /** Files on the local disk (waiting, uploading, or uploaded but not yet deleted). */
  get localFiles(): number {
    return this.workers.reduce((n, w) => n + w.queued + w.inflight + w.toDelete, 0);
  }

  /** Free bytes on the shared scratch disk. */
  get diskFreeBytes(): number {
    return Math.max(
      0,
      Math.round(
        this.opts.diskTotalBytes - this.baseUsedBytes - this.localFiles * this.opts.sampleBytes,
      ),
    );
  }

  /** Size of the shared scratch disk in bytes. */
  get diskTotalBytes(): number {
    return this.opts.diskTotalBytes;
  }

  /** Samples in the whole run. */
  get totalSamples(): number {
    return this.opts.totalSamples;
  }

  /** Samples extracted over all workers. */
  get done(): number {
    return this.workers.reduce((n, w) => n + w.done, 0);
  }

  /** Uploads in flight over all workers (never above `maxInflight`). */
  get inflight(): number {
    return this.workers.reduce((n, w) => n + w.inflight, 0);
  }

  /** True once every sample is extracted, uploaded and deleted locally. */
  get finished(): boolean {
    return this.workers.every((w) => w.done >= w.total && w.queued + w.inflight + w.toDelete === 0);
  }

  /** Advances the simulation by `dtS` simulated seconds (in steps of at most ~1 s). */
  advance(dtS: number): ExtractionHappening[] {
    const happenings: ExtractionHappening[] = [];
    if (dtS <= 0) return happenings;
    const steps = Math.min(5000, Math.max(1, Math.ceil(dtS)));
    const h = dtS / steps;
    for (let i = 0; i < steps; i++) this.step(h, happenings);
    return happenings;
  }

  /**
   * The worker's process dies: uploads in flight are lost (their files stay on disk and are
   * uploaded again by the next boot), nothing more is extracted until {@link resume}.
   */
  crash(workerId: string): void {
    const w = this.worker(workerId);
    if (!w.up) return;
    w.up = false;
    // The new process cannot know which uploads completed: it uploads those files again.
    w.queued += w.inflight + w.toDelete;
    w.inflight = 0;
    w.toDelete = 0;
    w.prodAcc = 0;
    w.compAcc = 0;
  }

  /**
   * The worker restarts under a new boot id: its per-boot counters start from 0, and its resume
   * scan finds `foundSamples` samples the crashed process had written but never reported, so its
   * `done` jumps ahead by that much (those files still need uploading).
   */
  resume(workerId: string, foundSamples: number): void {
    const w = this.worker(workerId);
    if (w.up) return;
    const found = Math.min(foundSamples, w.total - w.done);
    Object.assign(w, {
      up: true,
      bootId: this.opts.newBootId(),
      uploaded: 0,
      bytes: 0,
      failed: 0,
      deleted: 0,
      boots: w.boots + 1,
    });
    w.done += found;
    w.queued += found;
  }

  /** Current `run.progress` readings of the workers that are up. */
  readings(): ExtractionReading[] {
    const diskFreeBytes = this.diskFreeBytes;
    return this.workers
      .filter((w) => w.up)
      .map((w) => ({
        workerId: w.id,
        bootId: w.bootId,
        done: w.done,
        total: w.total,
        counters: {
          "s3.uploaded": w.uploaded,
          "s3.bytes": w.bytes,
          "s3.inflight": w.inflight,
          "s3.failed": w.failed,
          "local.deleted": w.deleted,
          "disk.freeBytes": diskFreeBytes,
        },
      }));
  }

  /** Looks a worker up by id. @throws Error for an unknown id. */
  worker(workerId: string): ExtractionWorker {
    const w = this.workers.find((x) => x.id === workerId);
    if (!w) throw new Error(`unknown extraction worker ${workerId}`);
    return w;
  }

  /**
   * S3 seconds per object with the pool full: the pool's throughput (objects/s) swings between
   * 0.25× and 2.25× the nominal extraction rate over `uploadPeriodS`, starting slow.
   */
  private latencyAt(t: number): number {
    const production = this.opts.workers.length * this.opts.samplesPerS;
    const factor = 1.25 - Math.cos((2 * Math.PI * t) / this.opts.uploadPeriodS);
    return this.opts.maxInflight / (production * factor);
  }

  private step(h: number, out: ExtractionHappening[]): void {
    const { rng, sampleBytes, shardSamples } = this.opts;
    this.simS += h;
    this.latencyS = this.latencyAt(this.simS) * Math.max(0.5, 1 + 0.08 * gaussian(rng));
    // S3 answers 503 SlowDown now and then while it is throttling us.
    const failProbability = this.latencyS > 25 ? 1 / 2500 : 1 / 200_000;
    for (const w of this.workers) {
      if (!w.up) continue;
      // Delete what the previous step uploaded: a file leaves the disk only after its upload.
      w.deleted += w.toDelete;
      w.toDelete = 0;

      if (w.done < w.total) {
        w.prodAcc += this.opts.samplesPerS * h * (0.9 + 0.2 * rng());
        const n = Math.min(Math.floor(w.prodAcc), w.total - w.done);
        w.prodAcc -= n;
        w.done += n;
        w.queued += n;
      }

      if (w.inflight > 0) {
        w.compAcc += (w.inflight * h) / this.latencyS;
        const k = Math.min(w.inflight, Math.floor(w.compAcc));
        w.compAcc -= k;
        w.inflight -= k;
        for (let j = 0; j < k; j++) {
          if (rng() < failProbability) {
            w.failed++;
            w.queued++; // retried later
            out.push({
              type: "upload-failed",
              worker: w.id,
              sample: w.uploadedAllBoots + w.inflight + 1,
              latencyS: this.latencyS,
            });
            continue;
          }
          w.uploaded++;
          w.uploadedAllBoots++;
          w.bytes += Math.round(sampleBytes * (0.9 + 0.2 * rng()));
          w.toDelete++;
          if (w.uploadedAllBoots % shardSamples === 0) {
            out.push({
              type: "shard-uploaded",
              worker: w.id,
              shard: w.shards++,
              samples: shardSamples,
              sizeBytes: Math.round(shardSamples * sampleBytes * (0.97 + 0.06 * rng())),
            });
          }
        }
      } else {
        w.compAcc = 0;
      }
    }
    this.fillUploadSlots();
  }

  /** Hands free upload slots to workers with waiting files, in equal shares. */
  private fillUploadSlots(): void {
    let free = this.opts.maxInflight - this.inflight;
    let waiting = this.workers.filter((w) => w.up && w.queued > 0);
    while (free > 0 && waiting.length > 0) {
      const share = Math.max(1, Math.floor(free / waiting.length));
      for (const w of waiting) {
        const give = Math.min(share, w.queued, free);
        w.queued -= give;
        w.inflight += give;
        free -= give;
        if (free === 0) break;
      }
      waiting = waiting.filter((w) => w.queued > 0);
    }
  }
}
