import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { NotFoundError } from "@/lib/server/errors";
import { firstStepBetween, servingSeriesReads } from "@/lib/server/metric-store";
import { SERVING_KEYS } from "@/lib/serving/derive";
import type {
  RunServingView,
  ServingRunView,
  ServingWindowView,
  SweepLevelMark,
} from "@/lib/view-models/serving";

import { deriveState } from "./runs";

/**
 * Serving telemetry reads (runs of kind `serving`: step = unix ms). Series are bucketed in SQL to
 * at most ~{@link MAX_BUCKETS} points per key over the window, so a day of 1 s scrapes never
 * leaves the database whole.
 */

const MAX_BUCKETS = 400;
const HOUR_MS = 3_600_000;
/** Serving runs shown at most per panel. */
const MAX_RUNS = 4;
/** A benchmark's window is widened by this much on each side, so its first and last scrape are in. */
const RUN_MARGIN_MS = 15_000;
/** The host panel starts this long before the first scrape of the hour… */
const FIRST_SCRAPE_MARGIN_MS = 10_000;
/** …but spans at least five minutes. */
const MIN_WINDOW_MS = 5 * 60_000;

const servingSelect = {
  id: true,
  key: true,
  name: true,
  status: true,
  lastPushAt: true,
  stallAfterS: true,
  config: true,
  host: { select: { name: true } },
} satisfies Prisma.RunSelect;
type ServingRow = Prisma.RunGetPayload<{ select: typeof servingSelect }>;

/**
 * The serving runs on host `name` that pushed within `window` (epoch ms; default the last hour
 * before `now`), newest first, at most 4; the window starts at its first scrape (10 s before it)
 * when that is later, spanning ≥ 5 min.
 * @throws NotFoundError when no host has this name.
 */
export async function getHostServing(
  db: PrismaClient,
  name: string,
  now: Date = new Date(),
  window?: { fromMs: number; toMs: number },
): Promise<ServingWindowView> {
  const host = await db.host.findUnique({ where: { name }, select: { id: true } });
  if (!host) throw new NotFoundError(`host ${name} not found`);
  const toMs = window?.toMs ?? now.getTime();
  const fromMs = window?.fromMs ?? toMs - HOUR_MS;
  const rows = await db.run.findMany({
    where: {
      hostId: host.id,
      kind: "serving",
      archivedAt: null,
      lastPushAt: { gte: new Date(fromMs) },
      startedAt: { lte: new Date(toMs) },
    },
    orderBy: { lastPushAt: "desc" },
    take: MAX_RUNS,
    select: servingSelect,
  });
  // A series that began within the hour is drawn from its first scrape, not as a sliver at the right edge.
  const first = rows.length
    ? await firstStepBetween(
        db,
        rows.map((r) => r.id),
        BigInt(fromMs),
        BigInt(toMs),
      )
    : null;
  const firstMs = first === null || first === undefined ? fromMs : Number(first);
  const windowFromMs = Math.max(
    fromMs,
    Math.min(firstMs - FIRST_SCRAPE_MARGIN_MS, toMs - MIN_WINDOW_MS),
  );
  return { fromMs: windowFromMs, toMs, runs: await servingRuns(db, rows, windowFromMs, toMs, now) };
}

/**
 * The server side of run `runId`. A benchmark (or any non-serving run): the serving runs it was
 * started with (`config.servingRuns`, `pitwall run --scrape`) and those on its host, over the run's
 * time (±15 s; up to now while it runs), with its sweep levels placed in time. A serving run: itself, over its last hour
 * of data, or over `window` (epoch ms, the page's chosen time range) when given; other runs ignore `window`.
 * @throws NotFoundError when no run has this id.
 */
export async function getRunServing(
  db: PrismaClient,
  runId: number,
  now: Date = new Date(),
  window?: { fromMs: number; toMs: number },
): Promise<RunServingView> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { ...servingSelect, kind: true, hostId: true, startedAt: true, endedAt: true },
  });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  if (run.kind === "serving" && window) {
    return {
      fromMs: window.fromMs,
      toMs: window.toMs,
      runs: await servingRuns(db, [run], window.fromMs, window.toMs, now),
      levels: [],
      clientAcceptLength: null,
    };
  }
  if (run.kind === "serving") {
    const toMs = Math.min(now.getTime(), run.lastPushAt.getTime() + RUN_MARGIN_MS);
    const fromMs = Math.max(run.startedAt.getTime() - RUN_MARGIN_MS, toMs - HOUR_MS);
    return {
      fromMs,
      toMs,
      runs: await servingRuns(db, [run], fromMs, toMs, now),
      levels: [],
      clientAcceptLength: null,
    };
  }
  const fromMs = run.startedAt.getTime() - RUN_MARGIN_MS;
  // A running benchmark's window reaches now: its own last push may be long ago (a quiet client).
  const toMs =
    run.status === "running"
      ? now.getTime()
      : Math.min(now.getTime(), (run.endedAt ?? run.lastPushAt).getTime() + RUN_MARGIN_MS);
  const linked = Array.isArray((run.config as Record<string, unknown>).servingRuns)
    ? ((run.config as Record<string, unknown>).servingRuns as unknown[]).filter(
        (k): k is string => typeof k === "string",
      )
    : [];
  const rows = await db.run.findMany({
    where: {
      kind: "serving",
      archivedAt: null,
      OR: [{ key: { in: linked } }, { hostId: run.hostId }],
      startedAt: { lte: new Date(toMs) },
      lastPushAt: { gte: new Date(fromMs) },
    },
    orderBy: { lastPushAt: "desc" },
    take: MAX_RUNS,
    select: servingSelect,
  });
  const points = await db.benchmarkPoint.findMany({
    where: { runId },
    orderBy: { ord: "asc" },
    select: {
      concurrency: true,
      requestRate: true,
      requestRateUnbounded: true,
      durationS: true,
      updatedAt: true,
      acceptLength: true,
    },
  });
  const levels: SweepLevelMark[] = [];
  for (const p of points) {
    const endMs = p.updatedAt.getTime();
    if (
      p.durationS === null ||
      !Number.isFinite(p.durationS) ||
      endMs < fromMs ||
      endMs > toMs + RUN_MARGIN_MS
    )
      continue;
    const label =
      p.concurrency !== null
        ? `c=${p.concurrency}`
        : p.requestRateUnbounded
          ? "max rate"
          : p.requestRate !== null
            ? `${p.requestRate} req/s`
            : "level";
    levels.push({ startMs: endMs - p.durationS * 1000, endMs, label });
  }
  const taus = points
    .map((p) => p.acceptLength)
    .filter((v): v is number => v !== null && Number.isFinite(v));
  const clientAcceptLength = taus.length ? taus.reduce((a, b) => a + b, 0) / taus.length : null;
  return {
    fromMs,
    toMs,
    runs: await servingRuns(db, rows, fromMs, toMs, now),
    levels,
    clientAcceptLength,
  };
}

async function servingRuns(
  db: PrismaClient,
  rows: ServingRow[],
  fromMs: number,
  toMs: number,
  now: Date,
): Promise<ServingRunView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const bucketMs = Math.max(1, Math.ceil((toMs - fromMs) / MAX_BUCKETS));
  const from = BigInt(Math.floor(fromMs));
  const to = BigInt(Math.ceil(toMs));
  const [bucketed, latest, ups] = await servingSeriesReads(
    db,
    ids,
    from,
    to,
    bucketMs,
    SERVING_KEYS.up,
  );
  return rows.map((r) => {
    const config = (r.config ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? v : null);
    const intervalS =
      typeof config.intervalS === "number" && config.intervalS > 0 ? config.intervalS : 5;
    const up = ups.find((u) => u.runId === r.id);
    const seriesByKey = new Map<string, Array<{ tMs: number; value: number }>>();
    for (const b of bucketed) {
      if (b.runId !== r.id) continue;
      let pts = seriesByKey.get(b.key);
      if (!pts) seriesByKey.set(b.key, (pts = []));
      pts.push({ tMs: Number(b.t), value: b.value });
    }
    return {
      runId: r.id,
      key: r.key,
      name: r.name,
      state: deriveState(r.status, r.lastPushAt, r.stallAfterS, now),
      host: r.host.name,
      engine: str(config.engine),
      model: str(config.model),
      url: str(config.url),
      intervalS,
      up: up ? up.lastUp === 1 : null,
      downSinceMs: up && up.lastUp !== 1 && up.downSince !== null ? Number(up.downSince) : null,
      lastSampleMs: up?.goodT === null || up?.goodT === undefined ? null : Number(up.goodT),
      latest: Object.fromEntries(
        latest.filter((l) => l.runId === r.id).map((l) => [l.key, l.value]),
      ),
      series: [...seriesByKey].map(([key, points]) => ({ key, points })),
    };
  });
}
