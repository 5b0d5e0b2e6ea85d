import { z } from "zod";

import { planProposeFrame, sessionActivityFrame, sessionTodosFrame } from "./agent-frames";
import { INT4_MAX } from "./bounds";
import {
  anyNumber,
  base,
  clientKey,
  counterName,
  epochMs,
  hostName,
  metricKey,
  nonNegInt,
  safeCount,
  step64,
} from "./primitives";

/**
 * Pitwall wire protocol v1: the frames a worker sends to `/ws/ingest` (one JSON object per
 * WebSocket message) or `POST /api/ingest` (a JSON array of the same objects), and the server's
 * replies. Documented for humans in docs/protocol.md; this module is the source of truth.
 */

export { PROTOCOL_VERSION, MAX_FRAME_BYTES, anyNumber, step64 } from "./primitives";

export * from "./agent-frames";

export const RUN_KINDS = [
  "benchmark",
  "extraction",
  "generation",
  "training",
  "eval",
  "serving",
] as const;
/**
 * How a run ended. `ended`: it stopped and nothing says how it went (an imported log that ends at
 * its last step without reaching its planned steps); shown neutral, never as failed or running.
 */
export const RUN_END_STATUSES = ["succeeded", "failed", "cancelled", "ended"] as const;

/** `hello`: optional first frame; identifies the client software and the worker. */
export const helloFrame = z.strictObject({
  ...base,
  type: z.literal("hello"),
  client: z.string().max(200).optional(),
  workerId: z.string().max(200).optional(),
});

/** One GPU's readings in a heartbeat (nvidia-smi units). */
export const gpuFacts = z.looseObject({
  index: z.number().int().nonnegative().max(1024),
  name: z.string().max(200).optional(),
  /** Utilisation, percent 0-100. */
  utilPct: z.number().min(0).max(100).optional(),
  memUsedMiB: z.number().nonnegative().optional(),
  memTotalMiB: z.number().nonnegative().optional(),
  tempC: z.number().min(-50).max(200).optional(),
  powerW: z.number().nonnegative().optional(),
});

/** Host readings carried by a heartbeat. Extra fields are kept as sent. */
export const hostFacts = z.looseObject({
  gpus: z.array(gpuFacts).max(64).optional(),
  cpuPct: z.number().min(0).max(100).optional(),
  cpuCount: z.number().int().positive().max(1_000_000).optional(),
  ramUsedBytes: safeCount.optional(),
  ramTotalBytes: safeCount.optional(),
  diskFreeBytes: safeCount.optional(),
  diskTotalBytes: safeCount.optional(),
  loadAvg1: z.number().nonnegative().optional(),
});
export type HostFacts = z.infer<typeof hostFacts>;

/**
 * `heartbeat`: the token's host is alive. `intervalS` is the sender's heartbeat period
 * (default 10 s): the host turns stale after 3 missed heartbeats, offline after 5 minutes.
 */
export const heartbeatFrame = z.strictObject({
  ...base,
  type: z.literal("heartbeat"),
  ts: epochMs.optional(),
  intervalS: z.number().positive().max(3600).optional(),
  facts: hostFacts.optional(),
  /**
   * Agent sessions (their keys) whose agent process is alive on this host, sent by the agent
   * hooks' background heartbeat every 30 s: each counts as a signal from the session.
   */
  sessions: z.array(clientKey).max(100).optional(),
});

/**
 * `run.start`: creates a run, or updates it when the key exists (re-sends upsert).
 * `host` names where the work runs; default the token's host.
 */
export const runStartFrame = z.strictObject({
  ...base,
  type: z.literal("run.start"),
  run: clientKey,
  name: z.string().min(1).max(300),
  kind: z.enum(RUN_KINDS),
  host: hostName.optional(),
  startedAt: epochMs.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  notes: z.string().max(10_000).optional(),
  /** Expected items in all (e.g. 914000 samples), when known up front. */
  total: safeCount.optional(),
  /** What the items are: samples, prompts, steps, files… */
  unit: z.string().min(1).max(50).optional(),
  /** Seconds without a push after which the run shows as stale (default 120). */
  stallAfterS: z
    .number()
    .int()
    .min(5)
    .max(7 * 86_400)
    .optional(),
  /** Key of the agent session that started this run (shown on the session's page). */
  session: clientKey.optional(),
});

export const BENCHMARK_SCENARIOS = ["throughput", "long-context"] as const;

/**
 * One benchmark result: one level of a sweep. Latencies in ms, throughputs in tok/s or req/s,
 * `durationS` in seconds. A TTFT/TPOT/ITL that was not measured (non-streaming runs) is null.
 */
export const benchmarkPoint = z.strictObject({
  /** Stable key within the run; a later frame with the same key replaces the point. */
  key: clientKey,
  /** Position in the source (line number for files), for stable ordering. */
  ord: nonNegInt.optional(),
  scenario: z.enum(BENCHMARK_SCENARIOS).default("throughput"),
  dataset: z.string().max(200).nullish(),
  /** Configured level (SGLang/vLLM `max_concurrency`); null when unbounded. */
  concurrency: nonNegInt.nullish(),
  /** Mean requests actually in flight (SGLang's `concurrency` field). */
  measuredConcurrency: anyNumber.nullish(),
  /** Offered request rate in req/s; null with `requestRateUnbounded` for "inf". */
  requestRate: anyNumber.nullish(),
  requestRateUnbounded: z.boolean().optional(),
  inputLen: nonNegInt.nullish(),
  outputLen: nonNegInt.nullish(),
  completed: nonNegInt.nullish(),
  failed: nonNegInt.nullish(),
  durationS: anyNumber.nullish(),
  requestThroughput: anyNumber.nullish(),
  outputTokPerS: anyNumber.nullish(),
  totalTokPerS: anyNumber.nullish(),
  ttftMsMean: anyNumber.nullish(),
  ttftMsMedian: anyNumber.nullish(),
  ttftMsP99: anyNumber.nullish(),
  tpotMsMean: anyNumber.nullish(),
  tpotMsMedian: anyNumber.nullish(),
  tpotMsP99: anyNumber.nullish(),
  itlMsMean: anyNumber.nullish(),
  itlMsMedian: anyNumber.nullish(),
  itlMsP99: anyNumber.nullish(),
  e2eMsMean: anyNumber.nullish(),
  e2eMsMedian: anyNumber.nullish(),
  e2eMsP99: anyNumber.nullish(),
  /** Acceptance length τ (tokens per verify step) when speculative decoding was on. */
  acceptLength: anyNumber.nullish(),
  /** The source row, minus per-request arrays and large blobs. */
  raw: z.record(z.string(), z.unknown()).optional(),
});

/** `run.benchmark`: one or more benchmark points for a started run. */
export const runBenchmarkFrame = z.strictObject({
  ...base,
  type: z.literal("run.benchmark"),
  run: clientKey,
  points: z.array(benchmarkPoint).min(1).max(5000),
});

/**
 * `run.progress`: where one worker of a run stands. `done`/`total` are item counts; `counters`
 * are cumulative per worker *boot* (`bootId` changes when the worker process restarts, and the
 * server keeps run totals monotonic across restarts). Names ending in `inflight` and starting
 * with `disk.` are gauges (current values), not cumulative.
 */
export const runProgressFrame = z.strictObject({
  ...base,
  type: z.literal("run.progress"),
  run: clientKey,
  workerId: z.string().min(1).max(100).default("main"),
  bootId: z.string().min(1).max(100),
  ts: epochMs.optional(),
  done: safeCount.optional(),
  total: safeCount.optional(),
  unit: z.string().min(1).max(50).optional(),
  counters: z.record(counterName, z.number().nonnegative().max(Number.MAX_SAFE_INTEGER)).optional(),
});

/** One metric value at a step; a re-sent (run, key, step) replaces the value (latest wins). */
export const metricPoint = z.strictObject({
  key: metricKey,
  step: step64,
  value: anyNumber,
  ts: epochMs.optional(),
});

/** `run.metrics`: metric points (loss, accuracy, lr, τ…); NaN and ±Infinity are kept as such. */
export const runMetricsFrame = z.strictObject({
  ...base,
  type: z.literal("run.metrics"),
  run: clientKey,
  points: z.array(metricPoint).min(1).max(10_000),
});

/** `run.artifact`: a checkpoint or uploaded object; re-sending the same uri updates it. */
export const runArtifactFrame = z.strictObject({
  ...base,
  type: z.literal("run.artifact"),
  run: clientKey,
  kind: z.string().min(1).max(50),
  uri: z.string().min(1).max(2000),
  sizeBytes: safeCount.optional(),
  step: step64.optional(),
  ts: epochMs.optional(),
});

export const EVENT_LEVELS = ["debug", "info", "warn", "error"] as const;

/** `run.event`: a log line worth keeping on the run page. */
export const runEventFrame = z.strictObject({
  ...base,
  type: z.literal("run.event"),
  run: clientKey,
  level: z.enum(EVENT_LEVELS).default("info"),
  message: z.string().min(1).max(10_000),
  ts: epochMs.optional(),
});

/** Most lines one `run.output` frame carries (the server keeps a run's last 200 anyway). */
export const RUN_OUTPUT_MAX_LINES = 200;

/**
 * `run.output`: the next finished lines of a command's output (stdout and stderr interleaved as
 * a terminal shows them), appended to the run's output tail while it runs; the server keeps the
 * last 200 lines / 64 KiB (`pitwall run` sends them about once a second; `--no-live-output`).
 */
export const runOutputFrame = z.strictObject({
  ...base,
  type: z.literal("run.output"),
  run: clientKey,
  lines: z.array(z.string().max(4000)).min(1).max(RUN_OUTPUT_MAX_LINES),
});

/** `run.end`: final status of a run, optionally with the last lines of its output. */
export const runEndFrame = z.strictObject({
  ...base,
  type: z.literal("run.end"),
  run: clientKey,
  status: z.enum(RUN_END_STATUSES),
  endedAt: epochMs.optional(),
  error: z.string().max(10_000).optional(),
  /** Process exit code; a signed 32-bit integer (a Postgres int4). */
  exitCode: z
    .number()
    .int()
    .min(-INT4_MAX - 1)
    .max(INT4_MAX)
    .optional(),
  /** The last lines of the command's output (at most 200 lines / 64 KiB are kept). */
  outputTail: z.array(z.string().max(4000)).max(200).optional(),
});

/**
 * One speculative-decoding evaluation result: a prompt (or a prompt group) scored on a checkpoint.
 * Raw counts only; the acceptance length τ is derived once, everywhere, as
 * tokens produced per verify step = (accepted draft tokens + one bonus token per step) / verify
 * steps — what SGLang reports as accept length and vLLM as 1 + accepted/drafts.
 */
export const evalResult = z.strictObject({
  /** Stable key within the run (a later frame with the same key replaces the result). */
  key: clientKey,
  checkpoint: z.strictObject({
    step: step64.optional(),
    label: z.string().min(1).max(200).optional(),
    /** Artifact URI of the checkpoint, e.g. s3://drafters/dflash/step-4000. */
    uri: z.string().min(1).max(2000).optional(),
  }),
  promptId: z.string().min(1).max(500),
  category: z.string().max(200).optional(),
  dataset: z.string().max(200).optional(),
  /** Target forward passes (draft/verify cycles). */
  verifySteps: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  /** Draft tokens accepted over all steps, NOT counting the bonus token of each step. */
  acceptedTokens: z.number().nonnegative().max(Number.MAX_SAFE_INTEGER),
  /** Draft settings: block size, tree / top-k, steps, draft tokens… */
  draft: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  outputTokPerS: anyNumber.optional(),
  ts: epochMs.optional(),
});
export type EvalResultInput = z.input<typeof evalResult>;

/** `run.eval`: evaluation results of a run (kind `eval`, or a training run scoring its checkpoints). */
export const runEvalFrame = z.strictObject({
  ...base,
  type: z.literal("run.eval"),
  run: clientKey,
  results: z.array(evalResult).min(1).max(5000),
});

/** Largest |value| and tolerance a baseline may carry (both in the metric's unit). */
export const BASELINE_VALUE_MAX = 1e9;

/** `baseline.upsert`: a reference figure drawn as a labelled line (e.g. τ 12.4 of a public drafter). */
export const baselineUpsertFrame = z.strictObject({
  ...base,
  type: z.literal("baseline.upsert"),
  /** Trimmed; the key the frame upserts by (exact, case-sensitive match). */
  name: z.string().trim().min(1).max(200),
  /** Metric the baseline applies to: `tau`, `outputTokPerS`, … */
  metric: z.string().min(1).max(100),
  /** Finite, |value| ≤ 1e9 (BASELINE_VALUE_MAX): a junk figure must not stretch every chart's axis. */
  value: z.number().min(-BASELINE_VALUE_MAX).max(BASELINE_VALUE_MAX),
  /** Optional ± band drawn around the line, 0..1e9 in the metric's unit. */
  tolerance: z.number().nonnegative().max(BASELINE_VALUE_MAX).optional(),
  dataset: z.string().max(200).optional(),
  settings: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .optional(),
  /** A link to the figure's source; http(s) only (it is rendered as a link). */
  sourceUrl: z
    .string()
    .url()
    .max(2000)
    .refine((u) => /^https?:\/\//i.test(u), { message: "must be an http:// or https:// URL" })
    .optional(),
});

/** Any worker → server frame. */
export const clientFrame = z.discriminatedUnion("type", [
  helloFrame,
  heartbeatFrame,
  runStartFrame,
  runBenchmarkFrame,
  runProgressFrame,
  runMetricsFrame,
  runArtifactFrame,
  runEventFrame,
  runOutputFrame,
  runEndFrame,
  sessionTodosFrame,
  sessionActivityFrame,
  planProposeFrame,
  runEvalFrame,
  baselineUpsertFrame,
]);

export type HelloFrame = z.infer<typeof helloFrame>;
export type HeartbeatFrame = z.infer<typeof heartbeatFrame>;
export type RunStartFrame = z.infer<typeof runStartFrame>;
export type BenchmarkPointInput = z.input<typeof benchmarkPoint>;
export type BenchmarkPoint = z.infer<typeof benchmarkPoint>;
export type RunBenchmarkFrame = z.infer<typeof runBenchmarkFrame>;
export type RunEndFrame = z.infer<typeof runEndFrame>;
export type RunProgressFrame = z.infer<typeof runProgressFrame>;
export type RunMetricsFrame = z.infer<typeof runMetricsFrame>;
export type MetricPointInput = z.input<typeof metricPoint>;
export type RunArtifactFrame = z.infer<typeof runArtifactFrame>;
export type RunEventFrame = z.infer<typeof runEventFrame>;
export type RunOutputFrame = z.infer<typeof runOutputFrame>;
export type RunEvalFrame = z.infer<typeof runEvalFrame>;
export type BaselineUpsertFrame = z.infer<typeof baselineUpsertFrame>;
/** A validated worker → server frame. */
export type ClientFrame = z.infer<typeof clientFrame>;
/** A worker → server frame as a client writes it (before defaults/transforms). */
export type ClientFrameInput = z.input<typeof clientFrame>;
export type RunKind = (typeof RUN_KINDS)[number];
