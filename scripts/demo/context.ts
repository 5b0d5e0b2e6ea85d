import type { PitwallSocket } from "@/lib/client";

import type { Rng } from "./rng";

/** The simulated hosts; each has its own worker token (a token speaks for one host). */
export const DEMO_HOSTS = ["kpro5", "ct129", "ws-a6000", "kpro6"] as const;
/** One of {@link DEMO_HOSTS}. */
export type DemoHost = (typeof DEMO_HOSTS)[number];

/** What every simulated worker gets from the demo. */
export interface DemoContext {
  /** Pitwall base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The worker token of `host`. */
  token(host: DemoHost): string;
  /** Opens a new worker connection (one per simulated worker process) with the token of `host`. */
  connect(host: DemoHost, workerId: string): PitwallSocket;
  /** Prints a line about something worth looking at on the dashboard. */
  note(message: string): void;
  rng: Rng;
  /** Prefix of run keys, unique per demo start (re-starting the demo never continues old runs). */
  keyPrefix: string;
  /** Simulated seconds per real second. */
  speed: number;
  /** Real time, epoch ms (what frames carry as `ts`). */
  now(): number;
}

/** One GPU's readings, nvidia-smi units (as the heartbeat's `facts.gpus[]`). */
export type GpuReading = {
  index: number;
  name: string;
  utilPct: number;
  memUsedMiB: number;
  memTotalMiB: number;
  tempC: number;
  powerW: number;
};

/** A simulated worker (or group of workers) driven by the demo's clock. */
export interface DemoWorker {
  /** Sends its `run.start` and waits until the server has it. */
  start(): Promise<void>;
  /** Advances by `simDtS` simulated seconds; pushes what changed. */
  tick(simDtS: number, nowMs: number): void;
  /** Stops: runs still open end as `cancelled`, child processes are stopped. */
  stop(): Promise<void>;
  /** GPU readings of the GPUs it uses, for its host's heartbeat. */
  gpus(rng: Rng): GpuReading[];
  /** One line for the periodic console summary. */
  summary(): string;
}

/** A GPU reading for a GPU at `utilPct` with `memUsedMiB` allocated: temperature and power follow the load. */
export function gpuReading(
  rng: Rng,
  g: { index: number; name: string; memTotalMiB: number; maxPowerW: number },
  utilPct: number,
  memUsedMiB: number,
): GpuReading {
  const util = Math.max(
    0,
    Math.min(100, Math.round(utilPct + (utilPct > 0 ? (rng() - 0.5) * 6 : 0))),
  );
  return {
    index: g.index,
    name: g.name,
    utilPct: Math.min(100, util),
    memUsedMiB: Math.round(memUsedMiB),
    memTotalMiB: g.memTotalMiB,
    tempC: Math.round(34 + util * 0.42 + rng() * 3),
    powerW: Math.round(25 + (util / 100) * (g.maxPowerW - 25) * (0.92 + rng() * 0.08)),
  };
}

/**
 * Where the demo's drafter checkpoints of `run` ("run6", "run7") live, under a folder per demo
 * start: checkpoint URIs identify checkpoints across runs (lineage, evals), so a restarted demo
 * must not reuse the earlier start's URIs for its new runs.
 */
export function checkpointPrefix(ctx: Pick<DemoContext, "keyPrefix">, run: string): string {
  return `s3://dflash-ckpts/qwen3.6-27b-b16/${ctx.keyPrefix.replace(/^demo-/, "")}/${run}`;
}
