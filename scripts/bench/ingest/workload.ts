/**
 * The `ingest` scenario's workload: deterministic training-metric points (`run.metrics`, protocol
 * v1), identical for every path that loads them (Pitwall over /ws/ingest, COPY, unnest, the
 * Pushgateway). Worker `w` pushes its own run; frame `f` holds `points` points: `keys` metric
 * keys × (points / keys) consecutive steps, step-major (loss@s, lr@s, …, loss@s+1, …), one
 * timestamp per step, and a NaN every 997th step of `grad_norm` (non-finite values are kept).
 */
import { parseArgs } from "node:util";

/** Sizes and knobs of one scenario run (flags of `npm run bench ingest`). */
export interface IngestOptions {
  workers: number;
  /** Frames per worker per round. */
  frames: number;
  /** Points per frame. */
  points: number;
  /** Metric keys per run (points / keys steps per frame). */
  keys: number;
  /** Frames in flight per socket. */
  window: number;
  /** Frames per worker pushed (to runs of their own) and thrown away before each round's clock starts, for Pitwall and the Pushgateway alike: a server that runs for weeks is measured warm (JIT-compiled, pools open), not in its first second. */
  warmup: number;
  rounds: number;
  seed: number;
}

/** Parses the scenario's flags (`--full`: 3 rounds, more frames). @throws Error on a bad value. */
export function parseIngestOptions(full: boolean): IngestOptions {
  const { values } = parseArgs({
    options: {
      workers: { type: "string", default: "8" },
      frames: { type: "string", default: full ? "100" : "40" },
      points: { type: "string", default: "1000" },
      keys: { type: "string", default: "10" },
      window: { type: "string", default: "4" },
      warmup: { type: "string", default: "10" },
      rounds: { type: "string", default: full ? "3" : "1" },
      seed: { type: "string", default: "1" },
    },
    // Scenario names and other scenarios' flags pass through when run from the suite.
    strict: false,
    allowPositionals: true,
  });
  const int = (
    name: string,
    raw: string | boolean | undefined,
    min: number,
    max: number,
  ): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`--${name} must be an integer in ${min}..${max} (got '${raw}')`);
    return n;
  };
  const opts: IngestOptions = {
    workers: int("workers", values.workers, 1, 64),
    frames: int("frames", values.frames, 1, 100_000),
    points: int("points", values.points, 1, 10_000),
    keys: int("keys", values.keys, 1, KEY_NAMES.length),
    window: int("window", values.window, 1, 1000),
    warmup: int("warmup", values.warmup, 0, 100_000),
    rounds: int("rounds", values.rounds, 1, 20),
    seed: int("seed", values.seed, 0, 2 ** 31 - 1),
  };
  if (opts.points % opts.keys !== 0)
    throw new Error(`--points (${opts.points}) must be a multiple of --keys (${opts.keys})`);
  return opts;
}

const KEY_NAMES = [
  "train/loss",
  "train/lr",
  "train/grad_norm",
  "train/tokens_per_s",
  "train/mfu",
  "eval/loss",
  "eval/accuracy",
  "train/tau",
  "train/aux_loss",
  "train/z_loss",
  "mem/allocated_bytes",
  "mem/reserved_bytes",
  "throughput/tflops",
  "train/ppl",
  "train/entropy",
  "train/kl",
];
/** The first epoch millisecond of every run's timestamps (a fixed date, well inside the protocol's time window). */
const T0_MS = Date.UTC(2026, 10, 1);

/** One point of the workload; `value` may be NaN. */
export interface WorkloadPoint {
  key: string;
  step: number;
  value: number;
  tsMs: number;
}

/** Calls `fn` for every point of frame `frame` of worker `worker`, in frame order. */
export function forEachPoint(
  opts: IngestOptions,
  worker: number,
  frame: number,
  fn: (p: WorkloadPoint) => void,
): void {
  const steps = opts.points / opts.keys;
  const p: WorkloadPoint = { key: "", step: 0, value: 0, tsMs: 0 };
  for (let s = 0; s < steps; s++) {
    const step = frame * steps + s;
    p.step = step;
    p.tsMs = T0_MS + step * 250;
    for (let k = 0; k < opts.keys; k++) {
      p.key = KEY_NAMES[k]!;
      // Deterministic, cheap and exactly representable in JSON and COPY text alike.
      p.value =
        k === 2 && step % 997 === 0
          ? NaN
          : Math.round(
              (2.5 * Math.exp(-step / 20_000) +
                ((step * 7919 + k * 104_729 + worker * 31 + opts.seed) % 1000) / 1e4) *
                1e6,
            ) / 1e6;
      fn(p);
    }
  }
}

/** The JSON text of frame `frame` of worker `worker` for run key `run` (NaN as the protocol's "NaN"). */
export function frameText(
  opts: IngestOptions,
  worker: number,
  frame: number,
  run: string,
  id: string,
): string {
  const parts: string[] = [];
  forEachPoint(opts, worker, frame, (p) => {
    parts.push(
      `{"key":"${p.key}","step":${p.step},"value":${Number.isNaN(p.value) ? '"NaN"' : p.value},"ts":${p.tsMs}}`,
    );
  });
  return `{"v":1,"id":${JSON.stringify(id)},"type":"run.metrics","run":${JSON.stringify(run)},"points":[${parts.join(",")}]}`;
}

/** COPY text rows (runId, key, step, value, ts) of every frame of worker `worker`: what MetricPoint must hold for its run afterwards. */
export function copyText(opts: IngestOptions, worker: number, runId: number): string {
  const parts: string[] = [];
  for (let f = 0; f < opts.frames; f++) {
    forEachPoint(opts, worker, f, (p) =>
      parts.push(`${runId}\t${p.key}\t${p.step}\t${p.value}\t${new Date(p.tsMs).toISOString()}\n`),
    );
  }
  return parts.join("");
}

/** The same rows as columns for `INSERT … SELECT FROM unnest(…)`, one chunk per frame. */
export function unnestChunks(
  opts: IngestOptions,
  worker: number,
  runId: number,
): Array<[number[], string[], number[], number[], Date[]]> {
  const chunks: Array<[number[], string[], number[], number[], Date[]]> = [];
  for (let f = 0; f < opts.frames; f++) {
    const chunk: [number[], string[], number[], number[], Date[]] = [[], [], [], [], []];
    forEachPoint(opts, worker, f, (p) => {
      chunk[0].push(runId);
      chunk[1].push(p.key);
      chunk[2].push(p.step);
      chunk[3].push(p.value);
      chunk[4].push(new Date(p.tsMs));
    });
    chunks.push(chunk);
  }
  return chunks;
}

/** Prometheus text exposition (format 0.0.4) of frame `frame` of worker `worker`: `points` distinct series, one sample each. */
export function pushgatewayBody(opts: IngestOptions, worker: number, frame: number): string {
  const parts: string[] = [];
  let i = 0;
  forEachPoint(opts, worker, frame, (p) => {
    parts.push(`bench_metric{series="${i++}"} ${Number.isNaN(p.value) ? "NaN" : p.value}\n`);
  });
  return parts.join("");
}
