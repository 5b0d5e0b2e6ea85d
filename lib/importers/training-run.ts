import {
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  type ClientFrameInput,
  type MetricPointInput,
} from "../protocol/frames";
import { chunkBySize, envelopeBytes, frameId, withId } from "./frame-building";
import { checkFrameLimit, checkRunLabels } from "./import-files";
import {
  baseName,
  naturalCompare,
  sha256Hex,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import { setOwn } from "./source-values";
import {
  TrainingImportError,
  type ParsedTrainingLog,
  type TrainingFormat,
  type TrainingMetric,
} from "./training-common";
import type { RepeatedStepsSummary } from "./training-repeats";

/**
 * Run assembly for the training-log importers: parsed logs → `run.start` (kind `training`),
 * `run.metrics`…, `run.progress`, `run.end` (see {@link buildTrainingRuns}). Pure: no I/O besides
 * hashing.
 *
 * Identity: a training log GROWS while training runs (LLaMA-Factory appends a line per logging
 * step; the Trainer rewrites `trainer_state.json` in every checkpoint folder with a longer
 * `log_history`). The run key therefore hashes the log's stable beginning (its first record and
 * the hyperparameters that cannot change mid-run), not the whole file, so importing a later
 * snapshot of the same training continues the same run, and importing the same snapshot again is
 * a no-op (identical frame ids, deduplicated by the server).
 */

/** Default largest number of points in one `run.metrics` frame (the protocol allows 10000). */
export const DEFAULT_MAX_METRIC_POINTS_PER_FRAME = 2000;
/** Default largest serialised `run.metrics` frame, in bytes: 768 KiB, well under the 1 MiB limit. */
export const DEFAULT_MAX_METRIC_FRAME_BYTES = 768 * 1024;
/** `workerId` of the `run.progress` frames an import sends. */
export const IMPORT_WORKER_ID = "import";

/**
 * Training import options.
 * - `name`: run name (default: the log's folder, skipping a `checkpoint-<N>` folder, else the file
 *   name); at most 300 chars. Given with files of more than one training run, it is an error.
 * - `host`: host the training ran on (`run.start.host`); `tags`: run tags.
 * - `maxPointsPerFrame` (default 2000, at most 10000) and `maxFrameBytes` (default 768 KiB, at
 *   most 1 MiB): limits of each `run.metrics` frame, measured as serialised by `stringifyJson`.
 */
export interface TrainingImportOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxPointsPerFrame?: number;
  maxFrameBytes?: number;
}

/**
 * One imported training run: deterministic `runKey` (`import:<32 hex>`), `name`, source `format`,
 * `files` (oldest snapshot first), `pointCount` (metric points after resolving duplicate steps),
 * `lastStep` / `totalSteps` (progress in steps, null when unknown), `finished` (the log reached its
 * planned steps), `endStatus` (`succeeded` when finished, else `ended`: the log stops at its last
 * step and does not say how training went), `repeatedSteps` (steps the newest file logged more than
 * once; the later values are the ones sent), and `frames` to send in order (`run.start`,
 * `run.metrics`…, `run.progress`, `run.end`); every frame passes `checkFrame`.
 */
export interface ImportedTrainingRun {
  runKey: string;
  name: string;
  format: TrainingFormat;
  files: string[];
  pointCount: number;
  lastStep: number | null;
  totalSteps: number | null;
  finished: boolean;
  endStatus: "succeeded" | "ended";
  repeatedSteps: RepeatedStepsSummary;
  frames: ClientFrameInput[];
}

/** Result of a training import: the runs, and every record-level problem skipped over. */
export interface TrainingImportResult {
  runs: ImportedTrainingRun[];
  problems: ImportProblem[];
}

interface CheckedTrainingOptions {
  name?: string;
  host?: string;
  tags?: string[];
  maxPointsPerFrame: number;
  maxFrameBytes: number;
}

/** Validates import options. @throws TrainingImportError (file null) naming the bad option. */
export function checkTrainingOptions(opts: TrainingImportOptions): CheckedTrainingOptions {
  const fail = (message: string) => new TrainingImportError(null, message);
  return {
    ...checkRunLabels(opts, fail),
    maxPointsPerFrame: checkFrameLimit(
      opts.maxPointsPerFrame,
      DEFAULT_MAX_METRIC_POINTS_PER_FRAME,
      1,
      10_000,
      "maxPointsPerFrame",
      fail,
    ),
    maxFrameBytes: checkFrameLimit(
      opts.maxFrameBytes,
      DEFAULT_MAX_METRIC_FRAME_BYTES,
      4096,
      MAX_FRAME_BYTES,
      "maxFrameBytes",
      fail,
    ),
  };
}

/** Run key of a training log: `import:` + the first 32 hex of sha256 of its identity text. */
export function trainingRunKey(identity: string): string {
  return `import:${sha256Hex(identity).slice(0, 32)}`;
}

/**
 * Default run name of a log at `path`: its folder's name, or the folder above when the log sits in
 * a Trainer `checkpoint-<N>` folder (`out/qwen-drafter/checkpoint-500/trainer_state.json` →
 * `qwen-drafter`); the file name when the path names no folder.
 */
export function defaultTrainingRunName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
  parts.pop();
  while (parts.length > 0 && /^checkpoint-\d+$/.test(parts[parts.length - 1] as string))
    parts.pop();
  const folder = parts[parts.length - 1];
  return (folder === undefined || folder === ".." ? baseName(path) : folder).slice(0, 300);
}

/** Snapshots oldest first: by last step (none = oldest), then content hash (host-independent). */
function snapshotOrder(a: ParsedTrainingLog, b: ParsedTrainingLog): number {
  const sa = a.lastStep ?? -1;
  const sb = b.lastStep ?? -1;
  if (sa !== sb) return sa - sb;
  return a.contentHash < b.contentHash ? -1 : a.contentHash > b.contentHash ? 1 : 0;
}

type RunStartInput = Extract<ClientFrameInput, { type: "run.start" }>;
type RunMetricsInput = Extract<ClientFrameInput, { type: "run.metrics" }>;
type RunProgressInput = Extract<ClientFrameInput, { type: "run.progress" }>;
type RunEndInput = Extract<ClientFrameInput, { type: "run.end" }>;

/**
 * Builds runs from parsed training logs. Logs with the same identity (snapshots of one training:
 * `checkpoint-500/` and `checkpoint-1000/trainer_state.json`) become ONE run: their metrics are
 * merged oldest snapshot first, and for each (key, step) the value read last wins (a later line of
 * one file, or a newer snapshot), which is what the server's latest-wins upsert would keep too.
 *
 * Frames per run, in order:
 * - `run.start`: kind `training`, the name, `config` of the newest snapshot plus `format` and
 *   `sourceFiles` (base names), `total`/`unit: "steps"` when the planned steps are known.
 * - `run.metrics`: points sorted by (step, key), split in order into frames of at most
 *   `maxPointsPerFrame` points and `maxFrameBytes` bytes; a log that grows only changes its last
 *   frames, so re-importing it resends little (earlier frames keep their ids).
 * - `run.progress`: `done` = last step, `total` = planned steps, unit `steps`, worker `import`,
 *   `bootId` derived from the run key (no counters, so the boot only needs to be stable).
 * - `run.end` at the last logged step: `succeeded` when the newest snapshot shows training finished
 *   (reached its planned steps), else `ended` (stopped there, outcome unknown: a log cut mid-run or
 *   without a final line); `endedAt` = the log's last wall-clock time when it records one
 *   (`run.start.startedAt` = its first), else the server's receive time. Its id also hashes the
 *   `run.start` id: a changed `run.start` (new name, tags) is applied again and sets the run back to
 *   running, so the end must be applied again after it.
 * Frame ids hash their content, so the same input gives identical frames.
 * @throws TrainingImportError when `opts.name` is given for logs of more than one training run.
 */
export function buildTrainingRuns(
  logs: readonly ParsedTrainingLog[],
  opts: CheckedTrainingOptions,
): TrainingImportResult {
  const groups = new Map<string, ParsedTrainingLog[]>();
  for (const log of logs) {
    const key = trainingRunKey(log.identity);
    const group = groups.get(key);
    if (group) group.push(log);
    else groups.set(key, [log]);
  }
  if (opts.name !== undefined && groups.size > 1) {
    const firsts = [...groups.values()].map((g) => (g[0] as ParsedTrainingLog).path);
    throw new TrainingImportError(
      null,
      `a name names one run, but these files hold ${groups.size} different training runs (${firsts.join(", ")}); import them separately`,
    );
  }

  const runs: ImportedTrainingRun[] = [];
  const problems: ImportProblem[] = [];
  for (const [runKey, group] of groups) {
    const ordered = [...group].sort(snapshotOrder);
    const newest = ordered[ordered.length - 1] as ParsedTrainingLog;
    if (ordered.every((l) => l.metrics.length === 0 && l.lastStep === null)) {
      for (const l of ordered)
        problems.push({
          file: l.path,
          line: 0,
          message: "no training step in this log; nothing imported",
        });
      continue;
    }
    runs.push(buildOne(runKey, ordered, newest, opts));
  }
  runs.sort(
    (a, b) =>
      naturalCompare(a.files.at(-1) ?? "", b.files.at(-1) ?? "") || (a.runKey < b.runKey ? -1 : 1),
  );
  return { runs, problems };
}

function buildOne(
  runKey: string,
  ordered: ParsedTrainingLog[],
  newest: ParsedTrainingLog,
  opts: CheckedTrainingOptions,
): ImportedTrainingRun {
  const byPoint = new Map<string, TrainingMetric>();
  for (const log of ordered) {
    for (const m of log.metrics) {
      const id = `${m.key}\u0000${m.step}`;
      byPoint.delete(id);
      byPoint.set(id, m);
    }
  }
  const points: MetricPointInput[] = [...byPoint.values()]
    .sort((a, b) => a.step - b.step || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((m) => ({ key: m.key, step: m.step, value: m.value }));

  let lastStep: number | null = null;
  for (const log of ordered)
    if (log.lastStep !== null) lastStep = Math.max(lastStep ?? 0, log.lastStep);
  const totalSteps = newest.totalSteps;
  const finished = ordered.some((l) => l.finished && l.lastStep === newest.lastStep);
  const startedAtMs = ordered.reduce<number | null>(
    (min, l) =>
      l.startedAtMs === null ? min : min === null ? l.startedAtMs : Math.min(min, l.startedAtMs),
    null,
  );
  const endedAtMs = newest.endedAtMs;

  const sourceFiles = [...new Set(ordered.map((l) => baseName(l.path)))];
  const config: JsonObject = { format: newest.format };
  for (const [k, v] of Object.entries(newest.config)) setOwn(config, k, v);
  config.sourceFiles = sourceFiles;
  const name = opts.name ?? defaultTrainingRunName(newest.path);

  const startBody: Omit<RunStartInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.start",
    run: runKey,
    name,
    kind: "training",
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(startedAtMs !== null ? { startedAt: startedAtMs } : {}),
    config,
    ...(opts.tags !== undefined && opts.tags.length > 0 ? { tags: opts.tags } : {}),
    ...(totalSteps !== null ? { total: totalSteps } : {}),
    unit: "steps",
  };
  const startId = frameId(runKey, "start", startBody);
  const frames: ClientFrameInput[] = [withId(startBody, startId)];

  for (const chunk of chunkBySize(
    points,
    opts.maxPointsPerFrame,
    opts.maxFrameBytes - envelopeBytes(runKey, "run.metrics", "metrics", "points"),
  )) {
    const body: Omit<RunMetricsInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.metrics",
      run: runKey,
      points: chunk,
    };
    frames.push(withId(body, frameId(runKey, "metrics", body)));
  }

  const progressBody: Omit<RunProgressInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.progress",
    run: runKey,
    workerId: IMPORT_WORKER_ID,
    bootId: `import-${sha256Hex(runKey).slice(0, 16)}`,
    ...(lastStep !== null ? { done: lastStep } : {}),
    ...(totalSteps !== null ? { total: totalSteps } : {}),
    unit: "steps",
  };
  frames.push(withId(progressBody, frameId(runKey, "progress", progressBody)));

  const endStatus = finished ? "succeeded" : "ended";
  const endBody: Omit<RunEndInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.end",
    run: runKey,
    status: endStatus,
    ...(endedAtMs !== null ? { endedAt: endedAtMs } : {}),
  };
  // Not hashing the last step: without wall-clock times a grown log's `ended` must not be applied
  // again (the server would move endedAt to the import time, a duration the log never had).
  frames.push(withId(endBody, frameId(runKey, "end", { end: endBody, after: startId })));

  return {
    runKey,
    name,
    format: newest.format,
    files: ordered.map((l) => l.path),
    pointCount: points.length,
    lastStep,
    totalSteps,
    finished,
    endStatus,
    repeatedSteps: newest.repeatedSteps,
    frames,
  };
}
