import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import type { RunPatch } from "@/lib/api/runs";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { reconcileCounts, type CountMismatch } from "@/lib/metrics/reconcile";
import { runGroupKey } from "@/lib/run-list";
import { NotFoundError } from "@/lib/server/errors";
import type { BenchmarkPointView, RunDetail, RunState, RunSummary } from "@/lib/view-models";

import { aggregateRows, workerRows } from "./pipelines";

/** Columns of a run that its summary (the list row) and detail read. */
export const runSelect = {
  id: true,
  key: true,
  name: true,
  kind: true,
  status: true,
  config: true,
  tags: true,
  notes: true,
  error: true,
  stallAfterS: true,
  total: true,
  startedAt: true,
  endedAt: true,
  lastPushAt: true,
  archivedAt: true,
  editedAt: true,
  editedBy: true,
  archivedBy: true,
  host: { select: { name: true } },
} satisfies Prisma.RunSelect;

/** A run row as {@link runSelect} reads it. */
export type RunRow = Prisma.RunGetPayload<{ select: typeof runSelect }>;

/** Derives the displayed state: a running run with no push within its stall threshold is stale. */
export function deriveState(
  status: RunRow["status"],
  lastPushAt: Date,
  stallAfterS: number,
  now: Date,
): RunState {
  if (status === "running" && now.getTime() - lastPushAt.getTime() > stallAfterS * 1000)
    return "stale";
  return status;
}

/**
 * One run with its benchmark points (ordered by scenario, concurrency, request rate, source order).
 * @throws NotFoundError when no run has this id.
 */
export async function getRun(
  db: PrismaClient,
  id: number,
  now: Date = new Date(),
): Promise<RunDetail> {
  const row = await db.run.findUnique({ where: { id }, select: runSelect });
  if (!row) throw new NotFoundError(`run ${id} not found`);
  const points = await db.benchmarkPoint.findMany({
    where: { runId: id },
    orderBy: [
      { scenario: "asc" },
      { concurrency: { sort: "asc", nulls: "last" } },
      { requestRate: { sort: "asc", nulls: "last" } },
      { ord: "asc" },
      { key: "asc" },
    ],
    omit: { runId: true },
  });
  const [stats, mismatches] = await Promise.all([
    pointStats(db, [id]),
    runEndMismatches(db, [row]),
  ]);
  return {
    ...toSummary(row, stats.get(id), mismatches.get(id), now),
    notes: row.notes,
    error: row.error,
    editedAt: isoTimeOrNull(row.editedAt),
    editedBy: row.editedBy,
    archivedBy: row.archivedBy,
    benchmarkPoints: points.map(toPointView),
  };
}

/**
 * Aggregate over a run's BenchmarkPoint rows: the peak output tok/s as the list shows it (finite,
 * successful points; long-context ones only when the run has nothing else).
 */
export const PEAK_OUTPUT_TOK_PER_S = Prisma.sql`coalesce(
  max("outputTokPerS") FILTER (WHERE "outputTokPerS" <> 'NaN'::float8 AND "outputTokPerS" < 'Infinity'::float8 AND coalesce(completed, 1) > 0
    AND scenario <> 'long-context'),
  max("outputTokPerS") FILTER (WHERE "outputTokPerS" <> 'NaN'::float8 AND "outputTokPerS" < 'Infinity'::float8 AND coalesce(completed, 1) > 0))`;

/** Benchmark-point facts of one run: peak output tok/s and number of points. */
export interface PointStats {
  peak: number | null;
  count: number;
}

/** {@link PointStats} of each run in `runIds` that has points. */
export async function pointStats(
  db: PrismaClient,
  runIds: number[],
): Promise<Map<number, PointStats>> {
  const map = new Map<number, PointStats>();
  if (runIds.length === 0) return map;
  // NaN sorts above every number in Postgres, so max() must skip non-finite values explicitly.
  // Long-context points (one long request at a time) are no throughput peak, unless the run has nothing else.
  const rows = await db.$queryRaw<Array<{ runId: number; peak: number | null; count: number }>>`
    SELECT "runId",
           ${PEAK_OUTPUT_TOK_PER_S} AS peak, count(*)::int AS count
    FROM "BenchmarkPoint" WHERE "runId" IN (${Prisma.join(runIds)}) GROUP BY "runId"`;
  for (const r of rows) map.set(r.runId, { peak: r.peak, count: Number(r.count) });
  return map;
}

/**
 * Run-end reconciliation of the succeeded runs among `runs` (lib/metrics/reconcile.ts) from their
 * workers' aggregated done and counter totals; runs with no mismatch are absent from the map.
 */
export async function runEndMismatches(
  db: PrismaClient,
  runs: ReadonlyArray<{
    id: number;
    status: string;
    total: number | null;
    config: Prisma.JsonValue;
  }>,
): Promise<Map<number, CountMismatch[]>> {
  const ended = runs.filter((r) => r.status === "succeeded");
  const workers = await workerRows(
    db,
    ended.map((r) => r.id),
  );
  const out = new Map<number, CountMismatch[]>();
  for (const r of ended) {
    const ws = workers.get(r.id);
    if (!ws) continue;
    const agg = aggregateRows(ws);
    const config =
      r.config && typeof r.config === "object" && !Array.isArray(r.config)
        ? (r.config as Record<string, unknown>)
        : {};
    const found = reconcileCounts({
      done: agg.done,
      total: r.total ?? agg.total,
      counters: agg.counters,
      config,
    });
    if (found.length > 0) out.set(r.id, found);
  }
  return out;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 ? v : typeof v === "number" ? String(v) : null;
}

/** The list row of a run (`now` decides stale and a running run's duration). */
export function toSummary(
  r: RunRow,
  stats: PointStats | undefined,
  mismatches: CountMismatch[] | undefined,
  now: Date,
): RunSummary {
  const config = (r.config ?? {}) as Record<string, unknown>;
  return {
    id: r.id,
    key: r.key,
    name: r.name,
    kind: r.kind,
    status: r.status,
    state: deriveState(r.status, r.lastPushAt, r.stallAfterS, now),
    host: r.host.name,
    startedAt: isoTime(r.startedAt),
    endedAt: isoTimeOrNull(r.endedAt),
    lastPushAt: isoTime(r.lastPushAt),
    durationS: ((r.endedAt ?? now).getTime() - r.startedAt.getTime()) / 1000,
    tags: r.tags,
    archivedAt: isoTimeOrNull(r.archivedAt),
    config,
    model: str(config.model),
    engine: str(config.engine),
    engineVersion: str(config.engineVersion),
    peakOutputTokPerS: stats?.peak ?? null,
    pointCount: stats?.count ?? 0,
    countMismatches: mismatches ?? [],
    groupKey: runGroupKey({ kind: r.kind, name: r.name, config }),
  };
}

type PointRow = Omit<Prisma.BenchmarkPointGetPayload<object>, "runId">;

function toPointView(p: PointRow): BenchmarkPointView {
  const { updatedAt, raw, ...rest } = p;
  return { ...rest, raw: (raw ?? {}) as Record<string, unknown>, updatedAt: isoTime(updatedAt) };
}

/**
 * Applies a person's edit to a run and tells open browsers (topics `runs`, `run:<id>`). Editing
 * name, tags or notes sets `editedAt`/`editedBy`, after which a worker's run.start re-send keeps
 * them. Archiving sets `archivedAt`/`archivedBy` and is idempotent (archiving an archived run
 * keeps the first time and person); unarchiving clears both.
 * @throws NotFoundError when no run has this id.
 */
export async function updateRun(
  db: PrismaClient,
  id: number,
  patch: RunPatch,
  by: string,
  now: Date = new Date(),
): Promise<RunDetail> {
  const current = await db.run.findUnique({ where: { id }, select: { archivedAt: true } });
  if (!current) throw new NotFoundError(`run ${id} not found`);
  const edits = patch.name !== undefined || patch.tags !== undefined || patch.notes !== undefined;
  const data: Prisma.RunUpdateInput = {};
  if (patch.name !== undefined) data.name = patch.name;
  if (patch.tags !== undefined) data.tags = [...new Set(patch.tags)];
  if (patch.notes !== undefined) data.notes = patch.notes ? patch.notes : null;
  if (edits) Object.assign(data, { editedAt: now, editedBy: by });
  if (patch.archived === true && current.archivedAt === null)
    Object.assign(data, { archivedAt: now, archivedBy: by });
  if (patch.archived === false) Object.assign(data, { archivedAt: null, archivedBy: null });
  await db.$transaction([
    db.run.update({ where: { id }, data }),
    // pitwall_publish: NOTIFY both and bump the run topic's live sequence (lib/server/live/publish.ts).
    db.$executeRaw`SELECT pitwall_publish(${["runs", `run:${id}`]}::text[])`,
  ]);
  return getRun(db, id, now);
}
