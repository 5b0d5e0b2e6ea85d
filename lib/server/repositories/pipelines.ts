import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { ARTIFACT_PAGE_MAX } from "@/lib/api/runs";
import { isoTime } from "@/lib/iso-time";
import {
  aggregateWorkers,
  etaSeconds,
  windowedRate,
  type ProgressSample,
  type RunProgress,
} from "@/lib/metrics/progress";
import { runState } from "@/lib/metrics/staleness";
import { stepValue } from "@/lib/metrics/steps";
import { NotFoundError } from "@/lib/server/errors";
import {
  DEFAULT_S3_MAX_INFLIGHT,
  RATE_WINDOW_S,
  type ArtifactView,
  type CommandView,
  type ProgressFigures,
  type RunEventView,
  type RunProgressView,
  type S3PanelView,
  type UploadBucket,
  type UploadSeriesView,
  type WorkerView,
} from "@/lib/view-models/pipeline";

/**
 * Read models of pipeline runs: progress aggregated over workers, windowed rates and ETA, the S3
 * panel, uploads over time (bucketed in SQL), events and artifacts. Rates and staleness depend on
 * the clock, so every function takes `now`.
 */

/** Samples older than the window by more than this are never needed for the rate. */
const RATE_LOOKBACK = "1 hour";
/** The uploads chart keeps at most about this many time buckets. */
const UPLOAD_BUCKETS = 300;
/** Bucket widths (s) the uploads chart may use: round numbers on a time axis. */
const NICE_BUCKETS_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
  172_800, 604_800,
];
const EVENT_LIMIT = 100;
const ARTIFACT_LIMIT = ARTIFACT_PAGE_MAX;

/** Counter names shown in the S3 panel. */
export const S3_COUNTERS = {
  uploaded: "s3.uploaded",
  uploadedBytes: "s3.bytes",
  inflight: "s3.inflight",
  failed: "s3.failed",
  localDeleted: "local.deleted",
  diskFreeBytes: "disk.freeBytes",
} as const;

/** A worker row as stored. */
interface WorkerRow {
  runId: number;
  workerId: string;
  bootId: string;
  done: number | null;
  total: number | null;
  unit: string | null;
  counters: Prisma.JsonValue;
  lastPushAt: Date;
}

function countersOf(v: Prisma.JsonValue): Record<string, number> {
  const out: Record<string, number> = {};
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) if (typeof x === "number") out[k] = x;
  }
  return out;
}

/** Worker ids in natural order: gpu2 before gpu10. */
export function compareWorkerIds(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

/**
 * Progress samples (items done) per run for the rate window ending at `now`: every sample inside
 * the window plus, per worker boot, the last two before it: a pair straddling the window start
 * counts for its share, and a boot that went quiet still forms a pair (rate 0 rather than
 * unknown). Returns a map by run id (runs without samples are absent).
 */
export async function rateSamples(
  db: PrismaClient,
  runIds: readonly number[],
  now: Date,
): Promise<Map<number, ProgressSample[]>> {
  const map = new Map<number, ProgressSample[]>();
  if (runIds.length === 0) return map;
  const windowStart = new Date(now.getTime() - RATE_WINDOW_S * 1000);
  const ids = Prisma.join(runIds);
  const rows = await db.$queryRaw<
    Array<{ runId: number; workerId: string; bootId: string; tMs: number; done: number }>
  >`
    SELECT "runId", "workerId", "bootId", (extract(epoch FROM ts) * 1000)::float8 AS "tMs", done
      FROM "ProgressSample"
     WHERE "runId" IN (${ids}) AND done IS NOT NULL AND ts > ${windowStart}
    UNION ALL
    SELECT "runId", "workerId", "bootId", "tMs", done FROM (
      SELECT "runId", "workerId", "bootId", (extract(epoch FROM ts) * 1000)::float8 AS "tMs", done,
             row_number() OVER (PARTITION BY "runId", "workerId", "bootId" ORDER BY ts DESC, id DESC) AS nth
        FROM "ProgressSample"
       WHERE "runId" IN (${ids}) AND done IS NOT NULL AND ts <= ${windowStart}
         AND ts > ${windowStart}::timestamptz - ${RATE_LOOKBACK}::interval
    ) before WHERE nth <= 2`;
  for (const r of rows) {
    let list = map.get(r.runId);
    if (!list) map.set(r.runId, (list = []));
    list.push({ tMs: r.tMs, workerId: r.workerId, bootId: r.bootId, done: r.done });
  }
  return map;
}

/**
 * Items/s over the window ending at `nowMs`. A worker whose clock runs ahead reports from the
 * "future"; measuring up to its latest report keeps such pushes from being clipped away.
 */
export function rateAt(samples: readonly ProgressSample[], nowMs: number): number | null {
  let latest = nowMs;
  for (const s of samples) if (s.tMs > latest) latest = s.tMs;
  return windowedRate(samples, latest, RATE_WINDOW_S);
}

/** Progress figures from aggregated workers, the run's own total/unit, and the rate samples (running runs only get a rate and ETA). */
export function progressFigures(
  agg: RunProgress,
  run: { total: number | null; unit: string | null; status: string },
  samples: readonly ProgressSample[],
  units: readonly (string | null)[],
  nowMs: number,
): ProgressFigures {
  const total = run.total ?? agg.total;
  const done = agg.done;
  const fraction =
    done !== null && total !== null && total > 0 ? Math.min(1, Math.max(0, done / total)) : null;
  const ratePerS = run.status === "running" ? rateAt(samples, nowMs) : null;
  const remaining = done !== null && total !== null ? Math.max(0, total - done) : null;
  const etaS = run.status === "running" ? etaSeconds(remaining, ratePerS) : null;
  const unit = run.unit ?? units.find((u) => u !== null) ?? null;
  return { done, total, unit, fraction, ratePerS, etaS };
}

/** Aggregates stored worker rows (see {@link aggregateWorkers}). */
export function aggregateRows(rows: readonly WorkerRow[]): RunProgress {
  return aggregateWorkers(
    rows.map((w) => ({
      workerId: w.workerId,
      done: w.done,
      total: w.total,
      counters: countersOf(w.counters),
      lastPushMs: w.lastPushAt.getTime(),
    })),
  );
}

/** Worker rows of the given runs, by run id, workers in natural order. */
export async function workerRows(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<Map<number, WorkerRow[]>> {
  const map = new Map<number, WorkerRow[]>();
  if (runIds.length === 0) return map;
  const rows = await db.workerProgress.findMany({
    where: { runId: { in: [...runIds] } },
    select: {
      runId: true,
      workerId: true,
      bootId: true,
      done: true,
      total: true,
      unit: true,
      counters: true,
      lastPushAt: true,
    },
  });
  rows.sort((a, b) => compareWorkerIds(a.workerId, b.workerId));
  for (const r of rows) {
    let list = map.get(r.runId);
    if (!list) map.set(r.runId, (list = []));
    list.push(r);
  }
  return map;
}

function configNumber(config: Record<string, unknown>, path: string): number | null {
  let v: unknown = config[path];
  if (v === undefined) {
    v = config;
    for (const part of path.split("."))
      v =
        v && typeof v === "object" && !Array.isArray(v)
          ? (v as Record<string, unknown>)[part]
          : undefined;
  }
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function configString(config: Record<string, unknown>, key: string): string | null {
  const v = config[key];
  if (typeof v === "string" && v.length > 0) return v;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string"))
    return v.map(shellQuote).join(" ");
  return null;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The S3 panel from run counter totals; null when no S3, local or disk counter was reported. */
export function s3Panel(
  counters: Record<string, number>,
  config: Record<string, unknown>,
): S3PanelView | null {
  if (
    !Object.keys(counters).some(
      (k) => k.startsWith("s3.") || k.startsWith("local.") || k.startsWith("disk."),
    )
  )
    return null;
  const limit = configNumber(config, "s3.maxInflight");
  return {
    uploaded: counters[S3_COUNTERS.uploaded] ?? null,
    uploadedBytes: counters[S3_COUNTERS.uploadedBytes] ?? null,
    inflight: counters[S3_COUNTERS.inflight] ?? null,
    inflightLimit: limit !== null && limit > 0 ? limit : DEFAULT_S3_MAX_INFLIGHT,
    failed: counters[S3_COUNTERS.failed] ?? null,
    localDeleted: counters[S3_COUNTERS.localDeleted] ?? null,
    diskFreeBytes: counters[S3_COUNTERS.diskFreeBytes] ?? null,
  };
}

/** Smallest round bucket width (s) that splits `spanS` into at most {@link UPLOAD_BUCKETS} buckets. */
export function uploadBucketS(spanS: number): number {
  const need = spanS / UPLOAD_BUCKETS;
  return NICE_BUCKETS_S.find((b) => b >= need) ?? Math.ceil(need / 86_400) * 86_400;
}

/**
 * "S3 uploads over time": `s3.uploaded` summed over workers per time bucket (aligned to the
 * epoch). Each worker's counter is a monotonic total, so its value in a bucket is its last report
 * there, carried forward through buckets in which it did not report (a running max): the sum never
 * dips because one worker was quiet. Per bucket and worker one index probe finds the last report
 * (no scan of every sample: a 40 h run at one report per second per worker has ~600k).
 */
export async function uploadSeries(db: PrismaClient, runId: number): Promise<UploadSeriesView> {
  const bounds = await db.$queryRaw<Array<{ lo: number | null; hi: number | null }>>`
    SELECT extract(epoch FROM min(ts))::float8 AS lo, extract(epoch FROM max(ts))::float8 AS hi
    FROM "ProgressSample" WHERE "runId" = ${runId}`;
  const lo = bounds[0]?.lo ?? null;
  const hi = bounds[0]?.hi ?? null;
  if (lo === null || hi === null) return { bucketS: 1, buckets: [] };
  const bucketS = uploadBucketS(hi - lo);
  const rows = await db.$queryRaw<
    Array<{ tMs: number; uploaded: number | null; sampled: boolean; lastMs: number | null }>
  >`
    WITH workers AS (SELECT "workerId" FROM "WorkerProgress" WHERE "runId" = ${runId}),
    grid AS (
      SELECT g.b, w."workerId"
        FROM generate_series(floor(${lo}::float8 / ${bucketS}::float8)::int8, floor(${hi}::float8 / ${bucketS}::float8)::int8) AS g(b)
       CROSS JOIN workers w
    ), last_report AS (
      SELECT grid.b, grid."workerId", l.up, l.ts, l.ts IS NOT NULL AS sampled
        FROM grid
        LEFT JOIN LATERAL (
          SELECT (p.counters ->> 's3.uploaded')::float8 AS up, p.ts
            FROM "ProgressSample" p
           WHERE p."runId" = ${runId} AND p."workerId" = grid."workerId"
             AND p.ts >= to_timestamp(grid.b * ${bucketS}::float8) AND p.ts < to_timestamp((grid.b + 1) * ${bucketS}::float8)
           ORDER BY p.ts DESC LIMIT 1
        ) l ON true
    ), filled AS (
      SELECT b, max(up) OVER (PARTITION BY "workerId" ORDER BY b) AS up, sampled, ts FROM last_report
    )
    SELECT (b * ${bucketS}::float8 * 1000)::float8 AS "tMs", sum(up)::float8 AS uploaded, bool_or(sampled) AS sampled,
           (extract(epoch FROM max(ts)) * 1000)::float8 AS "lastMs"
      FROM filled GROUP BY b ORDER BY b`;
  // No worker ever reported the counter: no chart.
  if (rows.every((r) => r.uploaded === null)) return { bucketS, buckets: [] };
  // Workers report every few seconds or minutes, often less often than the bucket width. The
  // increase between two reported buckets, over the time between their last reports, is spread
  // evenly over the buckets it spans: the rate does not alternate between 0 and double when
  // reports are sparser than buckets, and the current (partial) bucket is not under-counted.
  const buckets: UploadBucket[] = rows.map((r) => ({
    tMs: r.tMs,
    uploaded: r.uploaded ?? 0,
    ratePerS: null,
    sampled: r.sampled,
  }));
  let last = -1;
  rows.forEach((r, i) => {
    if (!r.sampled || r.lastMs === null) return;
    const prev = last >= 0 ? rows[last]! : null;
    if (prev && prev.lastMs !== null && r.lastMs > prev.lastMs) {
      const rate =
        Math.max(0, buckets[i]!.uploaded - buckets[last]!.uploaded) /
        ((r.lastMs - prev.lastMs) / 1000);
      for (let k = last + 1; k <= i; k++) buckets[k]!.ratePerS = rate;
    }
    last = i;
  });
  return { bucketS, buckets };
}

/** Distinct boots per worker of a run. */
async function bootCounts(db: PrismaClient, runId: number): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<Array<{ workerId: string; boots: number }>>`
    SELECT "workerId", count(*)::int AS boots FROM (SELECT DISTINCT "workerId", "bootId" FROM "ProgressSample" WHERE "runId" = ${runId}) b GROUP BY 1`;
  return new Map(rows.map((r) => [r.workerId, r.boots]));
}

/** Latest events of a run: events of currently active alerts first, then newest first. */
async function runEvents(
  db: PrismaClient,
  runId: number,
  activeAlerts: readonly string[],
): Promise<RunEventView[]> {
  const rows = await db.$queryRaw<
    Array<{ id: string; ts: Date; level: string; message: string; code: string | null }>
  >`
    SELECT id::text AS id, ts, level, message, code FROM "RunEvent" WHERE "runId" = ${runId}
    ORDER BY (code IS NOT NULL AND code = ANY(${[...activeAlerts]}::text[])) DESC, ts DESC, id DESC
    LIMIT ${EVENT_LIMIT}`;
  return rows.map((r) => ({
    id: r.id,
    ts: isoTime(r.ts),
    level: r.level,
    message: r.message,
    code: r.code,
  }));
}

/**
 * Artifacts of run `runId`, newest first (time, then id), `limit` (1..{@link ARTIFACT_PAGE_MAX})
 * from `offset`, with the run's total count: the artifact table pages through every artifact
 * with it, not only the newest the run page loads.
 */
export async function listRunArtifacts(
  db: PrismaClient,
  runId: number,
  offset = 0,
  limit: number = ARTIFACT_LIMIT,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.artifact.findMany({
      where: { runId },
      orderBy: [{ ts: "desc" }, { id: "desc" }],
      skip: Math.max(0, offset),
      take: Math.min(Math.max(1, limit), ARTIFACT_LIMIT),
      select: { id: true, kind: true, uri: true, sizeBytes: true, step: true, ts: true },
    }),
    db.artifact.count({ where: { runId } }),
  ]);
  return {
    artifacts: rows.map((a) => ({
      id: a.id,
      kind: a.kind,
      uri: a.uri,
      sizeBytes: a.sizeBytes,
      step: a.step === null ? null : stepValue(a.step),
      ts: isoTime(a.ts),
    })),
    total,
  };
}

/**
 * One page of run `runId`'s artifacts for `GET /api/runs/:id/artifacts` ({@link listRunArtifacts}).
 * @throws NotFoundError when no run has this id.
 */
export async function getRunArtifactsPage(
  db: PrismaClient,
  runId: number,
  offset: number,
  limit: number,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  return listRunArtifacts(db, runId, offset, limit);
}

function runArtifacts(
  db: PrismaClient,
  runId: number,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  return listRunArtifacts(db, runId);
}

/**
 * What `pitwall run` recorded (config `commandLine`, else `command` as a string or argv array;
 * `cwd`, `gitCommit`; exit code, output tail; see docs/worker-clients.md); null when nothing.
 */
export function commandView(
  config: Record<string, unknown>,
  exitCode: number | null,
  outputTail: string | null,
): CommandView | null {
  const command = configString(config, "commandLine") ?? configString(config, "command");
  const cwd = configString(config, "cwd");
  const gitCommit = configString(config, "gitCommit");
  if (command === null && cwd === null && gitCommit === null && exitCode === null && !outputTail)
    return null;
  return {
    command,
    cwd,
    gitCommit,
    exitCode,
    outputTail: outputTail ? outputTail.split("\n") : [],
  };
}

/**
 * Everything the pipeline view of a run shows, as of `now`.
 * @throws NotFoundError when no run has this id.
 */
export async function getRunProgress(
  db: PrismaClient,
  runId: number,
  now: Date = new Date(),
): Promise<RunProgressView> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      id: true,
      kind: true,
      status: true,
      config: true,
      stallAfterS: true,
      lastPushAt: true,
      total: true,
      unit: true,
      exitCode: true,
      outputTail: true,
      activeAlerts: true,
    },
  });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  const nowMs = now.getTime();
  const config = (run.config ?? {}) as Record<string, unknown>;
  const [workersByRun, samplesByRun, boots, uploads, events, artifacts] = await Promise.all([
    workerRows(db, [runId]),
    rateSamples(db, [runId], now),
    bootCounts(db, runId),
    uploadSeries(db, runId),
    runEvents(db, runId, run.activeAlerts),
    runArtifacts(db, runId),
  ]);
  const rows = workersByRun.get(runId) ?? [];
  const samples = samplesByRun.get(runId) ?? [];
  const agg = aggregateRows(rows);
  const workers: WorkerView[] = rows.map((w) => ({
    workerId: w.workerId,
    bootId: w.bootId,
    restarts: Math.max(0, (boots.get(w.workerId) ?? 1) - 1),
    done: w.done,
    total: w.total,
    unit: w.unit,
    ratePerS:
      run.status === "running"
        ? rateAt(
            samples.filter((s) => s.workerId === w.workerId),
            nowMs,
          )
        : null,
    lastPushAt: isoTime(w.lastPushAt),
    state:
      run.status === "running"
        ? runState("running", w.lastPushAt.getTime(), run.stallAfterS, nowMs) === "stale"
          ? "stale"
          : "running"
        : "ended",
    counters: countersOf(w.counters),
  }));
  return {
    runId,
    kind: run.kind,
    status: run.status,
    state: runState(run.status, run.lastPushAt.getTime(), run.stallAfterS, nowMs),
    asOf: isoTime(now),
    lastPushAt: isoTime(run.lastPushAt),
    stallAfterS: run.stallAfterS,
    progress: progressFigures(
      agg,
      run,
      samples,
      rows.map((w) => w.unit),
      nowMs,
    ),
    workers,
    counters: agg.counters,
    s3: s3Panel(agg.counters, config),
    uploads,
    activeAlerts: run.activeAlerts,
    events,
    artifacts: artifacts.artifacts,
    artifactTotal: artifacts.total,
    command: commandView(config, run.exitCode, run.outputTail),
  };
}
