import { PitwallSocket, systemClock, type Clock } from "@/lib/client";

import { AgentDemo } from "./agent";
import { BenchmarkDemo } from "./benchmark";
import type { DemoContext, DemoHost, DemoWorker } from "./context";
import { DeploymentsDemo } from "./deployments";
import { EvalDemo } from "./evals";
import { ExtractionDemo } from "./extraction";
import { GenerationDemo } from "./generation";
import { HeartbeatDemo } from "./hosts";
import { seededRng, simClock } from "./rng";
import { ServingDemo } from "./serving";
import { TrainingDemo } from "./training";

/**
 * Runs the demo's simulated workers against a Pitwall server: each one a real worker client
 * (`PitwallSocket` from lib/client, or the Python client), driven by one clock that advances
 * simulated time `speed` times faster than real time, ticking once per real second so every
 * worker pushes about one batch of frames per second.
 */

/** Settings of {@link startSimulation}. */
export interface SimulationOptions {
  /** Pitwall base URL. */
  url: string;
  /** A worker token per simulated host. */
  tokens: Record<DemoHost, string>;
  /** Simulated seconds per real second. */
  speed: number;
  /** Seed of the simulation's random numbers. */
  seed: number;
  /** Drive the generation worker with the Python client (clients/python/pitwall). */
  usePython: boolean;
  /** Prefix of run keys (unique per start). */
  keyPrefix: string;
  /** Where notes and summaries go (one line each). */
  log: (line: string) => void;
  /** Real milliseconds between ticks (default 1000). */
  tickMs?: number;
  /** Real seconds between console summaries (default 60; 0 = none). */
  summaryEveryS?: number;
  clock?: Clock;
}

/** A running simulation. */
export interface Simulation {
  /** Run keys of the first run of each kind. */
  keys: { extraction: string; training: string; benchmark: string; generation: string };
  /** Which client drives the generation run. */
  generationClient: "python" | "typescript";
  /** Stops ticking, ends open runs as cancelled, waits for acks (at most 10 s) and disconnects. */
  stop(): Promise<void>;
}

/**
 * Starts every simulated worker (their runs exist on the server when this resolves) and the
 * clock that drives them.
 * @throws Error when a worker's run.start is not acknowledged within 30 s.
 */
export async function startSimulation(opts: SimulationOptions): Promise<Simulation> {
  const clock = opts.clock ?? systemClock;
  const sockets: PitwallSocket[] = [];
  let simS = 0;
  const ctx: DemoContext = {
    url: opts.url,
    token: (host) => opts.tokens[host],
    connect: (host, workerId) => {
      const socket = new PitwallSocket({
        url: opts.url,
        token: opts.tokens[host],
        idPrefix: `demo-${host}-${workerId}-${Date.now().toString(36)}`,
      });
      socket.on("rejected", (r) =>
        opts.log(`  ! ${host}/${workerId}: frame ${r.id ?? "?"} rejected: ${r.code}: ${r.message}`),
      );
      socket.on("fatal", (err) => opts.log(`  ! ${host}/${workerId}: ${err.message}`));
      sockets.push(socket);
      return socket;
    },
    note: (message) => opts.log(`  · [sim ${simClock(simS)}] ${message}`),
    rng: seededRng(opts.seed),
    keyPrefix: opts.keyPrefix,
    speed: opts.speed,
    now: () => clock.now(),
  };

  const extraction = new ExtractionDemo(ctx);
  const training = new TrainingDemo(ctx);
  const benchmark = new BenchmarkDemo(ctx);
  const generation = new GenerationDemo(ctx, opts.usePython);
  const deployments = new DeploymentsDemo(ctx);
  const evals = new EvalDemo(ctx, training);
  const agent = new AgentDemo(ctx);
  const serving = new ServingDemo(ctx);
  const workers: DemoWorker[] = [
    extraction,
    training,
    benchmark,
    generation,
    deployments,
    evals,
    agent,
    serving,
  ];
  const hosts = new HeartbeatDemo(ctx, [
    {
      host: "kpro5",
      cpuCount: 64,
      ramTotalBytes: 512 * 2 ** 30,
      diskTotalBytes: extraction.model.diskTotalBytes,
      gpus: (rng) => extraction.gpus(rng),
      diskFreeBytes: () => extraction.model.diskFreeBytes,
    },
    {
      host: "ct129",
      cpuCount: 128,
      ramTotalBytes: 1024 * 2 ** 30,
      diskTotalBytes: 15_360_000_000_000,
      gpus: (rng) => {
        const used = [...training.gpus(rng), ...generation.gpus(rng)];
        const idle = [6, 7].map((index) => ({
          index,
          name: "NVIDIA A100-SXM4-80GB",
          utilPct: 0,
          memUsedMiB: 0,
          memTotalMiB: 81_920,
          tempC: 31 + Math.round(rng() * 3),
          powerW: 52,
        }));
        return [...used, ...idle];
      },
      diskFreeBytes: () => 8_410_000_000_000,
    },
    {
      host: "ws-a6000",
      cpuCount: 32,
      ramTotalBytes: 256 * 2 ** 30,
      diskTotalBytes: 3_840_000_000_000,
      gpus: (rng) => benchmark.gpus(rng),
      diskFreeBytes: () => 1_270_000_000_000,
    },
    {
      host: "kpro6",
      cpuCount: 96,
      ramTotalBytes: 1536 * 2 ** 30,
      diskTotalBytes: 7_680_000_000_000,
      gpus: (rng) => deployments.gpus(rng),
      diskFreeBytes: () => 2_950_000_000_000,
    },
  ]);

  const closeAll = async () => {
    await Promise.all(sockets.map((s) => s.flush(10_000).catch(() => undefined)));
    await Promise.all(sockets.map((s) => s.close()));
  };
  try {
    await Promise.all(workers.map((w) => w.start()));
  } catch (err) {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await closeAll();
    throw err;
  }
  hosts.start();

  const stopping = new AbortController();
  const tickMs = opts.tickMs ?? 1000;
  const summaryEveryMs = (opts.summaryEveryS ?? 60) * 1000;
  const loop = (async () => {
    let last = clock.now();
    let nextSummary = last + summaryEveryMs;
    while (!stopping.signal.aborted) {
      await clock.sleep(tickMs, stopping.signal);
      if (stopping.signal.aborted) break;
      const now = clock.now();
      const simDtS = ((now - last) / 1000) * opts.speed;
      last = now;
      simS += simDtS;
      for (const w of workers) w.tick(simDtS, now);
      hosts.tick(now);
      if (summaryEveryMs > 0 && now >= nextSummary) {
        nextSummary = now + summaryEveryMs;
        opts.log(`  = [sim ${simClock(simS)}] ${workers.map((w) => w.summary()).join(" | ")}`);
      }
    }
  })();

  let stopped: Promise<void> | null = null;
  return {
    keys: {
      extraction: extraction.key,
      training: training.key,
      benchmark: benchmark.firstKey,
      generation: generation.key,
    },
    generationClient: generation.mode,
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        await loop;
        await Promise.all(workers.map((w) => w.stop()));
        await closeAll();
      })();
      return stopped;
    },
  };
}
