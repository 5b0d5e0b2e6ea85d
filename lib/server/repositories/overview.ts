import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { runState } from "@/lib/metrics/staleness";
import type { RunState } from "@/lib/view-models";
import type { ActiveEvalView, ActiveRunView, FinishedRunView, LatestMetric, OverviewEventView, OverviewView } from "@/lib/view-models/overview";
import { listHosts } from "./hosts";
import { aggregateRows, progressFigures, rateSamples, stepValue, workerRows } from "./pipelines";
import { runEndMismatches } from "./runs";
import { isoTime } from "@/lib/iso-time";

/**
 * The overview read model: running and stale runs with their progress lines, host health, recent
 * events and recently finished runs, in a handful of queries whatever the number of runs.
 */

/** Stale runs silent for longer than this leave the overview (they stay on /runs?status=stale). */
const STALE_HORIZON_MS = 24 * 60 * 60 * 1000;
const RECENT_RUNS = 10;
const RECENT_EVENTS = 30;
const LATEST_METRICS = 3;
/** Metric keys scanned per run for the "latest values" line (a skip scan, one index probe per key). */
const MAX_METRIC_KEYS = 50;

/** Latest point of each metric key of a run (loose index scan over the (runId, key, step) key). */
async function latestMetrics(db: PrismaClient, runId: number): Promise<LatestMetric[]> {
  const rows = await db.$queryRaw<Array<{ key: string; step: bigint; value: number }>>`
    WITH RECURSIVE keys(key, n) AS (
      (SELECT key, 1 FROM "MetricPoint" WHERE "runId" = ${runId} ORDER BY key LIMIT 1)
      UNION ALL
      SELECT (SELECT m.key FROM "MetricPoint" m WHERE m."runId" = ${runId} AND m.key > keys.key ORDER BY m.key LIMIT 1), n + 1
        FROM keys WHERE keys.key IS NOT NULL AND n < ${MAX_METRIC_KEYS}::int
    )
    SELECT k.key, l.step, l.value FROM keys k
    CROSS JOIN LATERAL (SELECT step, value FROM "MetricPoint" m WHERE m."runId" = ${runId} AND m.key = k.key ORDER BY step DESC LIMIT 1) l
    WHERE k.key IS NOT NULL`;
  const isLoss = (k: string) => /loss/i.test(k);
  return rows
    .sort((a, b) => Number(isLoss(b.key)) - Number(isLoss(a.key)) || a.key.localeCompare(b.key))
    .slice(0, LATEST_METRICS)
    .map((r) => ({ key: r.key, step: stepValue(r.step), value: r.value }));
}

/**
 * Scored checkpoints per run (eval results grouped by checkpoint step, else label, else URI): how
 * many, the results behind them, the highest step and the latest result time. Runs without eval
 * results are absent.
 */
async function evalProgress(db: PrismaClient, runIds: readonly number[]): Promise<Map<number, ActiveEvalView>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.$queryRaw<Array<{ runId: number; checkpoints: number; results: number; latestStep: bigint | null; lastAt: Date }>>`
    SELECT "runId", count(DISTINCT coalesce('step:' || "checkpointStep"::text, 'label:' || "checkpointLabel", 'uri:' || "checkpointUri", 'none'))::int AS checkpoints,
           count(*)::int AS results, max("checkpointStep") AS "latestStep", max(ts) AS "lastAt"
      FROM "EvalResult" WHERE "runId" IN (${Prisma.join(runIds)}) GROUP BY 1`;
  return new Map(
    rows.map((r) => [r.runId, { checkpoints: Number(r.checkpoints), results: Number(r.results), latestStep: r.latestStep === null ? null : stepValue(r.latestStep), lastScoredAt: r.lastAt.toISOString() }]),
  );
}

async function activeRuns(db: PrismaClient, now: Date): Promise<{ active: ActiveRunView[]; olderStaleCount: number }> {
  const nowMs = now.getTime();
  const rows = await db.run.findMany({
    where: { status: "running", archivedAt: null },
    select: { id: true, name: true, kind: true, status: true, startedAt: true, lastPushAt: true, stallAfterS: true, total: true, unit: true, activeAlerts: true, host: { select: { name: true } } },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
  });
  let olderStaleCount = 0;
  const shown = rows.filter((r) => {
    const old = runState(r.status, r.lastPushAt.getTime(), r.stallAfterS, nowMs) === "stale" && nowMs - r.lastPushAt.getTime() > STALE_HORIZON_MS;
    if (old) olderStaleCount++;
    return !old;
  });
  const ids = shown.map((r) => r.id);
  const [workers, samples, points, metrics, evals] = await Promise.all([
    workerRows(db, ids),
    rateSamples(db, ids, now),
    ids.length ? db.benchmarkPoint.groupBy({ by: ["runId"], where: { runId: { in: ids } }, _count: { _all: true } }) : Promise.resolve([]),
    Promise.all(shown.map(async (r) => [r.id, await latestMetrics(db, r.id)] as const)),
    evalProgress(db, ids),
  ]);
  const pointCounts = new Map(points.map((p) => [p.runId, p._count._all]));
  const latest = new Map(metrics);
  const active = shown.map((r): ActiveRunView => {
    const ws = workers.get(r.id) ?? [];
    const state: RunState = runState(r.status, r.lastPushAt.getTime(), r.stallAfterS, nowMs);
    return {
      id: r.id,
      name: r.name,
      kind: r.kind,
      host: r.host.name,
      state,
      startedAt: isoTime(r.startedAt),
      lastPushAt: isoTime(r.lastPushAt),
      stallAfterS: r.stallAfterS,
      progress: progressFigures(aggregateRows(ws), r, samples.get(r.id) ?? [], ws.map((w) => w.unit), nowMs),
      workers: ws.length,
      staleWorkers: ws.filter((w) => runState("running", w.lastPushAt.getTime(), r.stallAfterS, nowMs) === "stale").length,
      activeAlerts: r.activeAlerts,
      pointCount: pointCounts.get(r.id) ?? 0,
      latestMetrics: latest.get(r.id) ?? [],
      evals: evals.get(r.id) ?? null,
    };
  });
  // Stale first (the most recently silent on top), then running by newest start (query order).
  const stale = active.filter((r) => r.state === "stale").sort((a, b) => Date.parse(b.lastPushAt) - Date.parse(a.lastPushAt));
  return { active: [...stale, ...active.filter((r) => r.state !== "stale")], olderStaleCount };
}

async function recentRuns(db: PrismaClient): Promise<FinishedRunView[]> {
  const rows = await db.run.findMany({
    where: { status: { not: "running" }, endedAt: { not: null }, archivedAt: null },
    orderBy: [{ endedAt: "desc" }, { id: "desc" }],
    take: RECENT_RUNS,
    select: { id: true, name: true, kind: true, status: true, startedAt: true, endedAt: true, error: true, exitCode: true, total: true, config: true, host: { select: { name: true } } },
  });
  const mismatches = await runEndMismatches(db, rows);
  return rows.map((r) => {
    const endedAt = r.endedAt ?? r.startedAt;
    return {
      id: r.id,
      name: r.name,
      kind: r.kind,
      host: r.host.name,
      state: r.status,
      startedAt: isoTime(r.startedAt),
      endedAt: isoTime(endedAt),
      durationS: Math.max(0, (endedAt.getTime() - r.startedAt.getTime()) / 1000),
      error: r.error,
      exitCode: r.exitCode,
      countMismatches: mismatches.get(r.id) ?? [],
    };
  });
}

async function recentEvents(db: PrismaClient): Promise<OverviewEventView[]> {
  const rows = await db.runEvent.findMany({
    where: { level: { in: ["info", "warn", "error"] } },
    orderBy: [{ ts: "desc" }, { id: "desc" }],
    take: RECENT_EVENTS,
    select: { id: true, ts: true, level: true, message: true, code: true, runId: true, run: { select: { name: true } } },
  });
  return rows.map((e) => ({ id: e.id.toString(), ts: isoTime(e.ts), level: e.level, message: e.message, code: e.code, runId: e.runId, runName: e.run.name }));
}

/** The overview as of `now` (staleness, rates and ETAs depend on it). */
export async function getOverview(db: PrismaClient, now: Date = new Date()): Promise<OverviewView> {
  const [{ active, olderStaleCount }, recent, hosts, events, anyRun] = await Promise.all([
    activeRuns(db, now),
    recentRuns(db),
    listHosts(db, now),
    recentEvents(db),
    db.run.findFirst({ select: { id: true } }),
  ]);
  return { asOf: isoTime(now), active, olderStaleCount, recent, hosts: hosts.hosts, events, empty: anyRun === null };
}
