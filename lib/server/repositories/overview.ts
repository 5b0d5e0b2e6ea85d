import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { OVERVIEW_PAGE } from "@/lib/api/overview";
import { isoTime } from "@/lib/iso-time";
import { runState } from "@/lib/metrics/staleness";
import { stepValue } from "@/lib/metrics/steps";
import { latestFinitePoints } from "@/lib/server/metric-store";
import { SERVING_KEYS } from "@/lib/serving/derive";
import type { RunState } from "@/lib/view-models";
import type {
  ActiveEvalView,
  ActiveRunView,
  FinishedRunView,
  LatestMetric,
  OverviewEventView,
  OverviewView,
} from "@/lib/view-models/overview";

import { listHosts } from "./hosts";
import { aggregateRows, progressFigures, rateSamples, workerRows } from "./pipelines";
import { runEndMismatches } from "./runs";

/**
 * The overview read model: one capped page of running and stale runs with their progress lines,
 * counts over all of them, host health, recent events and recently finished runs, in a handful of
 * queries whatever the number of runs.
 */

/** Stale runs silent for longer than this leave the overview (they stay on /runs?status=stale). */
const STALE_HORIZON_MS = 24 * 60 * 60 * 1000;
const RECENT_RUNS = 10;
const RECENT_EVENTS = 30;
const LATEST_METRICS = 3;
const SERVING_GLANCE: readonly string[] = [
  SERVING_KEYS.generationTokPerS,
  SERVING_KEYS.genTokPerS,
  SERVING_KEYS.runningRequests,
  SERVING_KEYS.kvCacheUsage,
  SERVING_KEYS.ttftMsP50,
];

/**
 * Latest finite point of up to LATEST_METRICS keys (losses first) of each run, in one set-based
 * read (lib/server/metric-store, latestFinitePoints).
 */
async function latestMetrics(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<Map<number, LatestMetric[]>> {
  const out = new Map<number, LatestMetric[]>();
  if (runIds.length === 0) return out;
  const rows = await latestFinitePoints(db, runIds);
  // Losses lead; a serving run leads with what a glance needs (output tok/s, requests, KV cache), not its alphabetically first keys.
  const rank = (k: string) =>
    /loss/i.test(k) ? 0 : SERVING_GLANCE.indexOf(k) >= 0 ? 1 + SERVING_GLANCE.indexOf(k) : 99;
  for (const r of rows) {
    const list = out.get(r.runId) ?? [];
    list.push({ key: r.key, step: stepValue(r.step), value: r.value });
    out.set(r.runId, list);
  }
  for (const [id, list] of out)
    out.set(
      id,
      list
        .sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key))
        .slice(0, LATEST_METRICS),
    );
  return out;
}

/**
 * Scored checkpoints per run (eval results grouped by checkpoint step, else label, else URI): how
 * many, the results behind them, the highest step and the latest result time. Runs without eval
 * results are absent.
 */
async function evalProgress(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<Map<number, ActiveEvalView>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.$queryRaw<
    Array<{
      runId: number;
      checkpoints: number;
      results: number;
      latestStep: bigint | null;
      lastAt: Date;
    }>
  >`
    SELECT "runId", count(DISTINCT coalesce('step:' || "checkpointStep"::text, 'label:' || "checkpointLabel", 'uri:' || "checkpointUri", 'none'))::int AS checkpoints,
           count(*)::int AS results, max("checkpointStep") AS "latestStep", max(ts) AS "lastAt"
      FROM "EvalResult" WHERE "runId" IN (${Prisma.join(runIds)}) GROUP BY 1`;
  return new Map(
    rows.map((r) => [
      r.runId,
      {
        checkpoints: Number(r.checkpoints),
        results: Number(r.results),
        latestStep: r.latestStep === null ? null : stepValue(r.latestStep),
        lastScoredAt: isoTime(r.lastAt),
      },
    ]),
  );
}

/** Which page of active runs to show: `offset` runs skipped, at most `limit` shown. */
export interface OverviewPageOptions {
  offset?: number;
  limit?: number;
}

type ActiveRow = {
  id: number;
  name: string;
  kind: ActiveRunView["kind"];
  status: "running";
  startedAt: Date;
  lastPushAt: Date;
  stallAfterS: number;
  total: number | null;
  unit: string | null;
  activeAlerts: string[];
  hostName: string;
};

/**
 * One page of the active runs (running, not archived, not stale for more than 24 h) plus counts
 * over all of them, by set-based queries whose cost does not grow with the page's neighbours:
 * stale runs first (most recently silent on top), then alerting runs, then the rest, each by
 * newest start (id breaks ties, so pages never overlap).
 */
async function activeRuns(
  db: PrismaClient,
  now: Date,
  page: Required<OverviewPageOptions>,
): Promise<Pick<OverviewView, "active" | "activeCounts" | "olderStaleCount">> {
  const nowMs = now.getTime();
  const horizon = new Date(nowMs - STALE_HORIZON_MS);
  // "stale" as runState: no push within stallAfterS seconds (lastPushAt + stallAfterS < now).
  const staleSql = Prisma.sql`(r."lastPushAt" + r."stallAfterS" * interval '1 second' < ${now}::timestamptz)`;
  const [counts, rows] = await Promise.all([
    db.$queryRaw<Array<{ running: number; stale: number; alerting: number; olderStale: number }>>`
      SELECT count(*) FILTER (WHERE NOT s.stale)::float8 AS running,
             count(*) FILTER (WHERE s.stale AND r."lastPushAt" >= ${horizon}::timestamptz)::float8 AS stale,
             count(*) FILTER (WHERE cardinality(r."activeAlerts") > 0 AND NOT (s.stale AND r."lastPushAt" < ${horizon}::timestamptz))::float8 AS alerting,
             count(*) FILTER (WHERE s.stale AND r."lastPushAt" < ${horizon}::timestamptz)::float8 AS "olderStale"
        FROM "Run" r CROSS JOIN LATERAL (SELECT ${staleSql} AS stale) s
       WHERE r.status = 'running' AND r."archivedAt" IS NULL`,
    db.$queryRaw<ActiveRow[]>`
      SELECT r.id, r.name, r.kind::text AS kind, r.status::text AS status, r."startedAt", r."lastPushAt", r."stallAfterS", r.total, r.unit, r."activeAlerts", h.name AS "hostName"
        FROM "Run" r JOIN "Host" h ON h.id = r."hostId"
        CROSS JOIN LATERAL (SELECT ${staleSql} AS stale) s
       WHERE r.status = 'running' AND r."archivedAt" IS NULL AND NOT (s.stale AND r."lastPushAt" < ${horizon}::timestamptz)
       ORDER BY CASE WHEN s.stale THEN 0 WHEN cardinality(r."activeAlerts") > 0 THEN 1 ELSE 2 END,
                CASE WHEN s.stale THEN r."lastPushAt" END DESC NULLS LAST, r."startedAt" DESC, r.id DESC
       LIMIT ${page.limit}::int OFFSET ${page.offset}::int`,
  ]);
  const c = counts[0] ?? { running: 0, stale: 0, alerting: 0, olderStale: 0 };
  const ids = rows.map((r) => r.id);
  const [workers, samples, points, metrics, evals] = await Promise.all([
    workerRows(db, ids),
    rateSamples(db, ids, now),
    ids.length
      ? db.benchmarkPoint.groupBy({
          by: ["runId"],
          where: { runId: { in: ids } },
          _count: { _all: true },
        })
      : Promise.resolve([]),
    latestMetrics(db, ids),
    evalProgress(db, ids),
  ]);
  const pointCounts = new Map(points.map((p) => [p.runId, p._count._all]));
  const latest = metrics;
  const active = rows.map((r): ActiveRunView => {
    const ws = workers.get(r.id) ?? [];
    const state: RunState = runState(r.status, r.lastPushAt.getTime(), r.stallAfterS, nowMs);
    return {
      id: r.id,
      name: r.name,
      kind: r.kind,
      host: r.hostName,
      state,
      startedAt: isoTime(r.startedAt),
      lastPushAt: isoTime(r.lastPushAt),
      stallAfterS: r.stallAfterS,
      progress: progressFigures(
        aggregateRows(ws),
        r,
        samples.get(r.id) ?? [],
        ws.map((w) => w.unit),
        nowMs,
      ),
      workers: ws.length,
      staleWorkers: ws.filter(
        (w) => runState("running", w.lastPushAt.getTime(), r.stallAfterS, nowMs) === "stale",
      ).length,
      activeAlerts: r.activeAlerts,
      pointCount: pointCounts.get(r.id) ?? 0,
      latestMetrics: latest.get(r.id) ?? [],
      evals: evals.get(r.id) ?? null,
    };
  });
  return {
    active,
    activeCounts: {
      total: c.running + c.stale,
      running: c.running,
      stale: c.stale,
      alerting: c.alerting,
      offset: page.offset,
      limit: page.limit,
    },
    olderStaleCount: c.olderStale,
  };
}

async function recentRuns(db: PrismaClient): Promise<FinishedRunView[]> {
  const rows = await db.run.findMany({
    where: { status: { not: "running" }, endedAt: { not: null }, archivedAt: null },
    orderBy: [{ endedAt: "desc" }, { id: "desc" }],
    take: RECENT_RUNS,
    select: {
      id: true,
      name: true,
      kind: true,
      status: true,
      startedAt: true,
      endedAt: true,
      error: true,
      exitCode: true,
      total: true,
      config: true,
      host: { select: { name: true } },
    },
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
    select: {
      id: true,
      ts: true,
      level: true,
      message: true,
      code: true,
      runId: true,
      run: { select: { name: true } },
    },
  });
  return rows.map((e) => ({
    id: e.id.toString(),
    ts: isoTime(e.ts),
    level: e.level,
    message: e.message,
    code: e.code,
    runId: e.runId,
    runName: e.run.name,
  }));
}

/** A page as getOverview reads it: offset at least 0, limit 1..OVERVIEW_PAGE.maxLimit (default OVERVIEW_PAGE.defaultLimit), whole numbers. */
export function overviewPage(page: OverviewPageOptions): Required<OverviewPageOptions> {
  return {
    offset: Math.max(0, Math.floor(page.offset ?? 0)),
    limit: Math.min(
      OVERVIEW_PAGE.maxLimit,
      Math.max(1, Math.floor(page.limit ?? OVERVIEW_PAGE.defaultLimit)),
    ),
  };
}

/** The overview as of `now` (staleness, rates and ETAs depend on it), with one page of active runs (default the first 50; limit capped at 200). */
export async function getOverview(
  db: PrismaClient,
  now: Date = new Date(),
  page: OverviewPageOptions = {},
): Promise<OverviewView> {
  const { offset, limit } = overviewPage(page);
  const [{ active, activeCounts, olderStaleCount }, recent, hosts, events, anyRun] =
    await Promise.all([
      activeRuns(db, now, { offset, limit }),
      recentRuns(db),
      listHosts(db, now),
      recentEvents(db),
      db.run.findFirst({ select: { id: true } }),
    ]);
  return {
    asOf: isoTime(now),
    active,
    activeCounts,
    olderStaleCount,
    recent,
    hosts: hosts.hosts,
    events,
    empty: anyRun === null,
  };
}
