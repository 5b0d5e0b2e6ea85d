import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { runListQuery } from "@/lib/api/runs";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { hostState } from "@/lib/metrics/staleness";
import { NotFoundError } from "@/lib/server/errors";
import type {
  GpuSeriesView,
  GpuView,
  HostDetailView,
  HostFactsView,
  HostListView,
  HostSamplePoint,
  HostView,
} from "@/lib/view-models/hosts";

import { listRuns } from "./run-list";

/**
 * Read models of hosts: derived liveness (online / stale / offline, from the heartbeat period),
 * the latest facts of the last heartbeat, and the last hour of readings bucketed in SQL (one
 * HostSample row per heartbeat: 360 an hour per host at the default 10 s period).
 */

/** The charts cover this much history. */
const HISTORY_MS = 60 * 60 * 1000;
/** Bucket of the host-list sparklines (s). */
const LIST_BUCKET_S = 60;
/** Bucket of the per-GPU charts on the host page (s). */
const DETAIL_BUCKET_S = 30;
/** Upper bound of open-ended history reads. */
const FAR_FUTURE = new Date(8.64e15);
/** Runs listed on a host page. */
const HOST_RUNS = 20;

const hostSelect = {
  id: true,
  name: true,
  facts: true,
  lastHeartbeatAt: true,
  heartbeatIntervalS: true,
} satisfies Prisma.HostSelect;
type HostRow = Prisma.HostGetPayload<{ select: typeof hostSelect }>;

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Typed view of stored heartbeat facts (`hostFacts` in lib/protocol/frames.ts); unknown fields are ignored, GPUs sorted by index. */
export function factsView(raw: unknown): HostFactsView | null {
  const f = record(raw);
  if (!f) return null;
  const gpus: GpuView[] = [];
  if (Array.isArray(f.gpus)) {
    for (const g of f.gpus) {
      const r = record(g);
      const index = num(r?.index);
      if (!r || index === null) continue;
      gpus.push({
        index,
        name: typeof r.name === "string" ? r.name : null,
        utilPct: num(r.utilPct),
        memUsedMiB: num(r.memUsedMiB),
        memTotalMiB: num(r.memTotalMiB),
        tempC: num(r.tempC),
        powerW: num(r.powerW),
      });
    }
    gpus.sort((a, b) => a.index - b.index);
  }
  return {
    gpus,
    cpuPct: num(f.cpuPct),
    cpuCount: num(f.cpuCount),
    loadAvg1: num(f.loadAvg1),
    ramUsedBytes: num(f.ramUsedBytes),
    ramTotalBytes: num(f.ramTotalBytes),
    diskFreeBytes: num(f.diskFreeBytes),
    diskTotalBytes: num(f.diskTotalBytes),
  };
}

/** Per host: GPU util mean, GPU memory %, CPU %, RAM % in `bucketS` buckets since `since`, oldest first. */
async function hostHistory(
  db: PrismaClient,
  hostIds: readonly number[],
  since: Date,
  bucketS: number,
  until: Date = FAR_FUTURE,
): Promise<Map<number, HostSamplePoint[]>> {
  const map = new Map<number, HostSamplePoint[]>();
  if (hostIds.length === 0) return map;
  const rows = await db.$queryRaw<
    Array<{
      hostId: number;
      tMs: number;
      gpuUtilPct: number | null;
      gpuMemPct: number | null;
      cpuPct: number | null;
      ramPct: number | null;
    }>
  >`
    WITH s AS (
      SELECT "hostId", floor(extract(epoch FROM ts) / ${bucketS}::float8)::int8 AS b, facts
        FROM "HostSample" WHERE "hostId" IN (${Prisma.join(hostIds)}) AND ts > ${since} AND ts <= ${until}
    ), hb AS (
      SELECT "hostId", b, avg((facts ->> 'cpuPct')::float8) AS cpu,
             avg((facts ->> 'ramUsedBytes')::float8 / nullif((facts ->> 'ramTotalBytes')::float8, 0) * 100) AS ram
        FROM s GROUP BY 1, 2
    ), gb AS (
      SELECT s."hostId", s.b, avg((g ->> 'utilPct')::float8) AS util,
             sum((g ->> 'memUsedMiB')::float8) / nullif(sum((g ->> 'memTotalMiB')::float8), 0) * 100 AS mem
        FROM s CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.facts -> 'gpus') = 'array' THEN s.facts -> 'gpus' ELSE '[]'::jsonb END) AS g
       GROUP BY 1, 2
    )
    SELECT hb."hostId", (hb.b * ${bucketS}::float8 * 1000)::float8 AS "tMs",
           gb.util::float8 AS "gpuUtilPct", gb.mem::float8 AS "gpuMemPct", hb.cpu::float8 AS "cpuPct", hb.ram::float8 AS "ramPct"
      FROM hb LEFT JOIN gb ON gb."hostId" = hb."hostId" AND gb.b = hb.b
     ORDER BY 1, 2`;
  for (const r of rows) {
    let list = map.get(r.hostId);
    if (!list) map.set(r.hostId, (list = []));
    list.push({
      tMs: r.tMs,
      gpuUtilPct: r.gpuUtilPct,
      gpuMemPct: r.gpuMemPct,
      cpuPct: r.cpuPct,
      ramPct: r.ramPct,
    });
  }
  return map;
}

async function runningCounts(
  db: PrismaClient,
  hostIds: readonly number[],
): Promise<Map<number, number>> {
  if (hostIds.length === 0) return new Map();
  const rows = await db.run.groupBy({
    by: ["hostId"],
    where: { status: "running", hostId: { in: [...hostIds] } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.hostId, r._count._all]));
}

function toHostView(
  h: HostRow,
  nowMs: number,
  runningRuns: number,
  lastHour: HostSamplePoint[],
): HostView {
  return {
    name: h.name,
    state: hostState(h.lastHeartbeatAt?.getTime() ?? null, h.heartbeatIntervalS, nowMs),
    lastHeartbeatAt: isoTimeOrNull(h.lastHeartbeatAt),
    heartbeatIntervalS: h.heartbeatIntervalS,
    facts: factsView(h.facts),
    runningRuns,
    lastHour,
  };
}

/**
 * Which hosts are machines to watch: those that ever sent a heartbeat or own a run. A token that
 * only pushes agent sessions or plans (a laptop, a CI job) has a Host row too, but no liveness to
 * report: listing it would show an "offline" host and lower "hosts online".
 */
export const WATCHED_HOSTS = {
  OR: [{ lastHeartbeatAt: { not: null } }, { runs: { some: {} } }],
} satisfies Prisma.HostWhereInput;

/** Every watched host ({@link WATCHED_HOSTS}) by name, with state as of `now`, latest facts, running-run count and the last hour in 1-minute buckets. */
export async function listHosts(db: PrismaClient, now: Date = new Date()): Promise<HostListView> {
  const hosts = await db.host.findMany({
    where: WATCHED_HOSTS,
    select: hostSelect,
    orderBy: { name: "asc" },
  });
  const ids = hosts.map((h) => h.id);
  const [history, running] = await Promise.all([
    hostHistory(db, ids, new Date(now.getTime() - HISTORY_MS), LIST_BUCKET_S),
    runningCounts(db, ids),
  ]);
  const nowMs = now.getTime();
  return {
    asOf: isoTime(now),
    hosts: hosts.map((h) => toHostView(h, nowMs, running.get(h.id) ?? 0, history.get(h.id) ?? [])),
  };
}

/** Per GPU of one host: util, memory and temperature means in `bucketS` buckets in (since, until]. */
async function gpuHistory(
  db: PrismaClient,
  hostId: number,
  since: Date,
  until: Date,
  bucketS: number,
): Promise<GpuSeriesView[]> {
  const rows = await db.$queryRaw<
    Array<{
      idx: number;
      name: string | null;
      memTotalMiB: number | null;
      tMs: number;
      utilPct: number | null;
      memUsedMiB: number | null;
      tempC: number | null;
    }>
  >`
    SELECT (g ->> 'index')::int AS idx, max(g ->> 'name') AS name, max((g ->> 'memTotalMiB')::float8) AS "memTotalMiB",
           (floor(extract(epoch FROM s.ts) / ${bucketS}::float8) * ${bucketS}::float8 * 1000)::float8 AS "tMs",
           avg((g ->> 'utilPct')::float8) AS "utilPct", avg((g ->> 'memUsedMiB')::float8) AS "memUsedMiB", avg((g ->> 'tempC')::float8) AS "tempC"
      FROM "HostSample" s
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.facts -> 'gpus') = 'array' THEN s.facts -> 'gpus' ELSE '[]'::jsonb END) AS g
     WHERE s."hostId" = ${hostId} AND s.ts > ${since} AND s.ts <= ${until} AND jsonb_typeof(g -> 'index') = 'number'
     GROUP BY 1, 4
     ORDER BY 1, 4`;
  const byGpu = new Map<number, GpuSeriesView>();
  for (const r of rows) {
    let s = byGpu.get(r.idx);
    if (!s) byGpu.set(r.idx, (s = { index: r.idx, name: null, memTotalMiB: null, points: [] }));
    s.name = r.name ?? s.name;
    s.memTotalMiB = r.memTotalMiB ?? s.memTotalMiB;
    s.points.push({ tMs: r.tMs, utilPct: r.utilPct, memUsedMiB: r.memUsedMiB, tempC: r.tempC });
  }
  return [...byGpu.values()];
}

/** Bucket width for a window: 30 s for an hour, wider for longer windows so a chart gets ≤ ~240 points. */
export function detailBucketS(spanMs: number): number {
  return Math.max(
    DETAIL_BUCKET_S,
    Math.ceil(spanMs / 1000 / 240 / DETAIL_BUCKET_S) * DETAIL_BUCKET_S,
  );
}

/**
 * One host with its per-GPU history over `window` (epoch ms; default the last hour before `now`)
 * and its latest runs.
 * @throws NotFoundError when no host has this name.
 */
export async function getHost(
  db: PrismaClient,
  name: string,
  now: Date = new Date(),
  window?: { fromMs: number; toMs: number },
): Promise<HostDetailView> {
  const host = await db.host.findUnique({ where: { name }, select: hostSelect });
  if (!host) throw new NotFoundError(`host ${name} not found`);
  const { fromMs, toMs } = window ?? { fromMs: now.getTime() - HISTORY_MS, toMs: now.getTime() };
  const since = new Date(fromMs);
  const until = new Date(toMs);
  const gpuBucketS = detailBucketS(toMs - fromMs);
  // CPU/RAM in the same buckets as the GPUs, so the shared crosshair finds the same times in every chart.
  const hostBucketS = gpuBucketS;
  const [history, running, gpuSeries, runs] = await Promise.all([
    // On the host page `lastHour` holds the chosen window (the CPU/RAM chart).
    hostHistory(db, [host.id], since, hostBucketS, until),
    runningCounts(db, [host.id]),
    gpuHistory(db, host.id, since, until, gpuBucketS),
    listRuns(db, runListQuery.parse({ host: name, hostMatch: "exact", limit: HOST_RUNS }), now),
  ]);
  return {
    ...toHostView(host, now.getTime(), running.get(host.id) ?? 0, history.get(host.id) ?? []),
    asOf: isoTime(now),
    windowFromMs: fromMs,
    windowToMs: toMs,
    gpuBucketS,
    hostBucketS,
    gpuSeries,
    runs: runs.runs,
  };
}
