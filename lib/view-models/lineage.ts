/**
 * Read models of checkpoint lineage (`/checkpoints`, `/checkpoints/view?uri=…`,
 * `GET /api/checkpoints`, `GET /api/checkpoints/lineage?uri=…`). A checkpoint is named by its
 * artifact URI (`s3://drafters/dflash/step-4000`); it is linked to
 * - the training runs that **produced** it: an artifact of kind `checkpoint` with that URI
 *   (`run.artifact`),
 * - the eval runs that **scored** it: eval results whose `checkpoint.uri` is the URI (`run.eval`),
 * - the benchmark runs that **served** it: runs of kind `benchmark` whose config has the URI as
 *   `checkpoint` (or, for a benchmark run that served the checkpoint itself, as `model` or
 *   `modelPath`). URIs match exactly (case and trailing slash included).
 * Plain JSON (dates as ISO 8601 strings); τ = tokens produced / verify steps (lib/metrics/tau.ts).
 */
import type { RunState, RunSummary } from "@/lib/view-models";

/** Config keys of a benchmark run that name the checkpoint it served, in order of preference. */
export const CHECKPOINT_CONFIG_KEYS = ["checkpoint", "model", "modelPath"] as const;
export type CheckpointConfigKey = (typeof CHECKPOINT_CONFIG_KEYS)[number];

/** A run as lineage lists it. */
export interface LineageRun {
  id: number;
  name: string;
  kind: RunSummary["kind"];
  state: RunState;
  host: string;
  startedAt: string;
}

/** A training run's checkpoint artifact with this URI. */
export interface CheckpointProducer {
  run: LineageRun;
  /** Training step of the checkpoint: a number, or a decimal string beyond 2^53; null when not reported. */
  step: number | string | null;
  sizeBytes: number | null;
  /** When the artifact was reported (or its own `ts`). */
  ts: string;
}

/** The results of one eval run on this checkpoint with one set of draft settings, summed. */
export interface CheckpointEval {
  run: LineageRun;
  /** Draft settings the results were measured with (block size, top-k, steps…); {} when none. */
  draft: Record<string, string | number | boolean | null>;
  /** Datasets of the results (sorted; empty when none was named). */
  datasets: string[];
  /** Eval results (prompts or prompt groups) summed. */
  results: number;
  verifySteps: number;
  acceptedTokens: number;
  /** Σ (accepted + verify steps) / Σ verify steps over the results. */
  tau: number;
  /** Checkpoint step as the results name it (largest when they differ); null when none. */
  checkpointStep: number | string | null;
  checkpointLabel: string | null;
  /** Latest result time. */
  lastTs: string;
}

/** A benchmark run that served this checkpoint. */
export interface CheckpointBenchmark {
  run: LineageRun;
  /** The config key that names the URI. */
  matchedBy: CheckpointConfigKey;
  model: string | null;
  engine: string | null;
  engineVersion: string | null;
  pointCount: number;
  /** Highest finite output tok/s among points with completed > 0; null without such points. */
  peakOutputTokPerS: number | null;
}

/** Everything the checkpoint page shows (`GET /api/checkpoints/lineage?uri=…`). */
export interface CheckpointLineageView {
  uri: string;
  /** Step from the producing artifact, else from eval results; null when nobody reported one. */
  step: number | string | null;
  /** Label eval results gave the checkpoint (`checkpoint.label`), if any. */
  label: string | null;
  /** Producers, oldest report first. */
  producedBy: CheckpointProducer[];
  /** Eval groups, best τ first. */
  scoredBy: CheckpointEval[];
  /** Benchmark runs, newest first. */
  servedBy: CheckpointBenchmark[];
  /** Highest τ among `scoredBy`; null without evals. */
  bestTau: number | null;
}

/** One row of the checkpoint list. */
export interface CheckpointSummary {
  uri: string;
  step: number | string | null;
  /** Earliest time anything referenced the URI (artifact, eval result, benchmark start). */
  firstSeenAt: string;
  /** The earliest producing run, or null when no run reported the artifact. */
  producer: { runId: number; runName: string } | null;
  /** Runs that reported the artifact (usually 1). */
  producerCount: number;
  /** Eval runs that scored it, and their results in all. */
  evalRuns: number;
  evalResults: number;
  /** Highest τ over (eval run, draft settings) groups; null without evals. */
  bestTau: number | null;
  /** Benchmark runs that served it. */
  benchmarkRuns: number;
}

/** The checkpoint list (`GET /api/checkpoints`), newest first (by `firstSeenAt`). */
export interface CheckpointListView {
  checkpoints: CheckpointSummary[];
  /** Most rows returned; more exist when `checkpoints.length === limit`. */
  limit: number;
}
