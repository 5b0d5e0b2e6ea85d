import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { isoTime } from "@/lib/iso-time";
import { NotFoundError } from "@/lib/server/errors";
import type { EvalSource, ProgressSource } from "@/lib/server/export/columns";
import { metricPointCountSql, settleForRead } from "@/lib/server/metric-store";
import type { BenchmarkPointView, RunSummary } from "@/lib/view-models";
import type { RunExportSummary } from "@/lib/view-models/export";

/**
 * Reads behind the export downloads. Series that can be long (metric points: millions per run;
 * eval results; progress reports: one per worker push) are read in keyset batches along an index,
 * one batch per query, so the server holds one batch at a time however large the run is. Benchmark
 * points are read whole: a run page already loads all of them.
 */

/** Rows per query of the batched reads. */
export const EXPORT_BATCH_ROWS = 5000;

/** The run an export names in its file. */
export interface ExportRun {
  id: number;
  key: string;
  name: string;
  kind: RunSummary["kind"];
}

const runRefSelect = { id: true, key: true, name: true, kind: true } satisfies Prisma.RunSelect;

/** The run to export. @throws NotFoundError when no run has this id. */
export async function getExportRun(db: PrismaClient, runId: number): Promise<ExportRun> {
  const run = await db.run.findUnique({ where: { id: runId }, select: runRefSelect });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  return run;
}

/** The runs of a comparison, in `ids` order. @throws NotFoundError naming every id that does not exist. */
export async function getExportRuns(
  db: PrismaClient,
  ids: readonly number[],
): Promise<ExportRun[]> {
  const rows = await db.run.findMany({ where: { id: { in: [...ids] } }, select: runRefSelect });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new NotFoundError(`run${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not found`);
  return ids.map((id) => byId.get(id)!);
}

/** Rows each export of a run would hold. @throws NotFoundError when no run has this id. */
export async function getRunExportSummary(
  db: PrismaClient,
  runId: number,
): Promise<RunExportSummary> {
  await getExportRun(db, runId);
  await settleForRead(db, [runId]);
  // Counts over the primary keys / the (runId, ts) index (index-only scans), and metric blocks' array lengths.
  const [row] = await db.$queryRaw<
    Array<{ points: number; metrics: number; evals: number; progress: number }>
  >`
    SELECT (SELECT count(*) FROM "BenchmarkPoint" WHERE "runId" = ${runId})::float8 AS points,
           (${metricPointCountSql(runId)})::float8 AS metrics,
           (SELECT count(*) FROM "EvalResult" WHERE "runId" = ${runId})::float8 AS evals,
           (SELECT count(*) FROM "ProgressSample" WHERE "runId" = ${runId})::float8 AS progress`;
  return {
    runId,
    rows: {
      points: row?.points ?? 0,
      metrics: row?.metrics ?? 0,
      evals: row?.evals ?? 0,
      progress: row?.progress ?? 0,
    },
  };
}

/** A run's benchmark points in run-page order (scenario, concurrency, request rate, source order, key): one batch. */
export async function* benchmarkPointBatches(
  db: PrismaClient,
  runId: number,
): AsyncGenerator<BenchmarkPointView[]> {
  const rows = await db.benchmarkPoint.findMany({
    where: { runId },
    orderBy: [
      { scenario: "asc" },
      { concurrency: { sort: "asc", nulls: "last" } },
      { requestRate: { sort: "asc", nulls: "last" } },
      { ord: "asc" },
      { key: "asc" },
    ],
    omit: { runId: true },
  });
  yield rows.map(({ updatedAt, raw, ...rest }) => ({
    ...rest,
    raw: (raw ?? {}) as Record<string, unknown>,
    updatedAt: isoTime(updatedAt),
  }));
}

/** Every eval result of a run by key, in batches (keyset on the primary key (runId, key)). */
export async function* evalResultBatches(
  db: PrismaClient,
  runId: number,
  batchSize = EXPORT_BATCH_ROWS,
): AsyncGenerator<EvalSource[]> {
  let after: string | null = null;
  for (;;) {
    const rows: Array<Omit<Prisma.EvalResultGetPayload<object>, "runId">> =
      await db.evalResult.findMany({
        where: { runId, ...(after !== null ? { key: { gt: after } } : {}) },
        orderBy: { key: "asc" },
        take: batchSize,
        omit: { runId: true },
      });
    if (rows.length > 0) {
      yield rows.map((r) => ({
        ...r,
        draft:
          r.draft && typeof r.draft === "object" && !Array.isArray(r.draft)
            ? (r.draft as Record<string, unknown>)
            : {},
      }));
    }
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1]!.key;
  }
}

/** Counter names any progress report of the run carried, sorted (the progress export's counter columns). */
export async function progressCounterNames(db: PrismaClient, runId: number): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ name: string }>>`
    SELECT DISTINCT jsonb_object_keys(counters) AS name FROM "ProgressSample"
     WHERE "runId" = ${runId} AND jsonb_typeof(counters) = 'object'`;
  return rows.map((r) => r.name).sort();
}

interface ProgressRow {
  id: bigint;
  ts: Date;
  workerId: string;
  bootId: string;
  done: number | null;
  counters: unknown;
}

function countersOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (v && typeof v === "object" && !Array.isArray(v))
    for (const [k, x] of Object.entries(v)) if (typeof x === "number") out[k] = x;
  return out;
}

/**
 * Every progress report of a run by time (then insertion order), in batches: keyset on (ts, id)
 * along the (runId, ts) index. Counters are the worker's monotonic totals after that report.
 */
export async function* progressSampleBatches(
  db: PrismaClient,
  runId: number,
  batchSize = EXPORT_BATCH_ROWS,
): AsyncGenerator<ProgressSource[]> {
  let after: { ts: Date; id: bigint } | null = null;
  for (;;) {
    const cursor: Prisma.Sql = after
      ? Prisma.sql`AND (ts, id) > (${after.ts}::timestamptz, ${after.id}::int8)`
      : Prisma.empty;
    const rows: ProgressRow[] = await db.$queryRaw<ProgressRow[]>`
      SELECT id, ts, "workerId", "bootId", done, counters FROM "ProgressSample"
       WHERE "runId" = ${runId} ${cursor}
       ORDER BY ts, id LIMIT ${batchSize}`;
    if (rows.length > 0)
      yield rows.map((r) => ({
        ts: r.ts,
        workerId: r.workerId,
        bootId: r.bootId,
        done: r.done,
        counters: countersOf(r.counters),
      }));
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    after = { ts: last.ts, id: last.id };
  }
}
