/**
 * Read models of a run's live activity: progress over workers, S3 counters, uploads over time,
 * events, artifacts and the `pitwall run` command. Plain JSON shapes (dates as ISO 8601 strings,
 * chart times as epoch ms in `tMs`), so client code may import them. Units live in field names.
 */
import type { RunState } from "@/lib/view-models";

/** Width of the sliding window the run and worker rates are measured over, in seconds. */
export const RATE_WINDOW_S = 300;

/** Uploads in flight allowed when the run's config sets no `s3.maxInflight`. */
export const DEFAULT_S3_MAX_INFLIGHT = 100;

/** Where a run stands, aggregated over its workers. Counts are in `unit` (samples, prompts…). */
export interface ProgressFigures {
  /** Items done over all workers; null when no worker reported `done`. */
  done: number | null;
  /** Expected items: the run's own total (run.start), else the workers' aggregated total. */
  total: number | null;
  unit: string | null;
  /** done / total clamped to [0, 1]; null without both. */
  fraction: number | null;
  /** Items per second over the last {@link RATE_WINDOW_S} s; null before two reports of one worker boot. */
  ratePerS: number | null;
  /** Seconds to finish (total − done) at `ratePerS`; null when unknown or stalled. */
  etaS: number | null;
}

/** One worker of a run (e.g. GPU 0). */
export interface WorkerView {
  workerId: string;
  /** Current boot (process instance) of the worker. */
  bootId: string;
  /** Worker restarts seen: distinct boots minus one. */
  restarts: number;
  done: number | null;
  total: number | null;
  unit: string | null;
  /** This worker's items/s over the rate window. */
  ratePerS: number | null;
  lastPushAt: string;
  /** `stale` when no push within the run's stall threshold; `ended` once the run finished. */
  state: "running" | "stale" | "ended";
  /** Monotonic counter totals (gauges: current value). */
  counters: Record<string, number>;
}

/** The S3 panel's figures (run totals; null when the counter was never reported). */
export interface S3PanelView {
  /** `s3.uploaded`: objects uploaded. */
  uploaded: number | null;
  /** `s3.bytes`: bytes uploaded. */
  uploadedBytes: number | null;
  /** `s3.inflight`: uploads in flight now (summed over workers). */
  inflight: number | null;
  /** Allowed in flight: config `s3.maxInflight`, else {@link DEFAULT_S3_MAX_INFLIGHT}. */
  inflightLimit: number;
  /** `s3.failed`: failed uploads. */
  failed: number | null;
  /** `local.deleted`: local files deleted after upload. */
  localDeleted: number | null;
  /** `disk.freeBytes`: free local disk (the fullest worker's disk). */
  diskFreeBytes: number | null;
}

/** One time bucket of the "S3 uploads over time" chart. */
export interface UploadBucket {
  /** Bucket start, epoch ms. */
  tMs: number;
  /** Objects uploaded by the end of the bucket, summed over workers (each worker's last value carried forward). */
  uploaded: number;
  /** Uploads per second during the bucket (the increase between two reports spread over the buckets between them); null before the second report. */
  ratePerS: number | null;
  /** True when some worker reported in this bucket (else `uploaded` is carried forward). */
  sampled: boolean;
}

/** Uploads over the run's lifetime in at most ~300 equal time buckets. */
export interface UploadSeriesView {
  bucketS: number;
  buckets: UploadBucket[];
}

/** A run event: a worker log line, or a server alert when `code` is set. */
export interface RunEventView {
  /** Event id (decimal string: a bigint in the database). */
  id: string;
  ts: string;
  level: "debug" | "info" | "warn" | "error" | string;
  message: string;
  /** Server alert code, e.g. `deleted_before_upload`, `step_overflow`; null for worker events. */
  code: string | null;
}

/** A checkpoint or uploaded object. */
export interface ArtifactView {
  id: number;
  kind: string;
  uri: string;
  sizeBytes: number | null;
  /** Training step: a number, or a decimal string beyond 2^53; null when not given. */
  step: number | string | null;
  ts: string;
}

/** What `pitwall run` recorded about the command it ran. */
export interface CommandView {
  /** The command line as run (argv joined with spaces when sent as an array). */
  command: string | null;
  cwd: string | null;
  gitCommit: string | null;
  exitCode: number | null;
  /** The last lines of output, oldest first. */
  outputTail: string[];
}

/** Everything the pipeline view of a run page shows (`GET /api/runs/:id/progress`). */
export interface RunProgressView {
  runId: number;
  kind: "benchmark" | "extraction" | "generation" | "training" | "eval" | "serving";
  status: "running" | "succeeded" | "failed" | "cancelled" | "ended";
  /** Status or the derived `stale`, as of `asOf`. */
  state: RunState;
  /** Server time the figures were computed at (rates and staleness depend on it). */
  asOf: string;
  lastPushAt: string;
  stallAfterS: number;
  progress: ProgressFigures;
  workers: WorkerView[];
  /** Run totals of every counter over all workers (`disk.*`: minimum). */
  counters: Record<string, number>;
  /** Null when the run reported no `s3.*`, `local.*` or `disk.*` counter. */
  s3: S3PanelView | null;
  uploads: UploadSeriesView;
  /** Invariant alerts currently raised (e.g. `deleted_before_upload`). */
  activeAlerts: string[];
  /** Latest 100 events, server alerts first, then newest first. */
  events: RunEventView[];
  /** Newest first, at most 200. */
  artifacts: ArtifactView[];
  /** Artifacts stored for the run (may exceed `artifacts.length`). */
  artifactTotal: number;
  /** Null unless the run was started by `pitwall run` (or reported an exit code/output). */
  command: CommandView | null;
}
