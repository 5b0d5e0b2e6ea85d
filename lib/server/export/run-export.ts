import type { PrismaClient } from "@/generated/prisma/client";
import { compareExportFilename, runExportFilename } from "@/lib/export-paths";
import { metricPointBatches } from "@/lib/server/metric-store";
import {
  benchmarkPointBatches,
  evalResultBatches,
  getExportRun,
  getExportRuns,
  progressCounterNames,
  progressSampleBatches,
  type ExportRun,
} from "@/lib/server/repositories/export";
import type { ExportData, ExportFormat } from "@/lib/view-models/export";

import {
  COMPARE_TABLE,
  EVAL_TABLE,
  METRIC_TABLE,
  POINT_TABLE,
  PROGRESS_JSON_TABLE,
  progressTable,
  type ComparePointSource,
} from "./columns";
import { exportResponse, exportStream } from "./encode";

/**
 * The export downloads: which reads and which table each data kind uses, wired into a streamed
 * Response. Called by the route handlers after they validated the query.
 */

function runHead(run: ExportRun, data: ExportData): Record<string, unknown> {
  return { run: { id: run.id, key: run.key, name: run.name, kind: run.kind }, data };
}

/**
 * `GET /api/runs/:id/export`: one run's `data` as a CSV or JSON download (streamed).
 * @throws NotFoundError when no run has this id (before anything is streamed).
 */
export async function runExport(
  db: PrismaClient,
  runId: number,
  data: ExportData,
  format: ExportFormat,
): Promise<Response> {
  const run = await getExportRun(db, runId);
  const filename = runExportFilename(run.id, data, format);
  const jsonHead = runHead(run, data);
  let body: ReadableStream<Uint8Array>;
  switch (data) {
    case "points":
      body = exportStream({
        format,
        table: POINT_TABLE,
        jsonHead,
        batches: benchmarkPointBatches(db, run.id),
      });
      break;
    case "metrics":
      body = exportStream({
        format,
        table: METRIC_TABLE,
        jsonHead,
        batches: metricPointBatches(db, run.id),
      });
      break;
    case "evals":
      body = exportStream({
        format,
        table: EVAL_TABLE,
        jsonHead,
        batches: evalResultBatches(db, run.id),
      });
      break;
    case "progress": {
      // CSV needs every counter name up front (one column each); JSON rows carry a counters object.
      const table =
        format === "csv"
          ? progressTable(await progressCounterNames(db, run.id))
          : PROGRESS_JSON_TABLE;
      body = exportStream({ format, table, jsonHead, batches: progressSampleBatches(db, run.id) });
      break;
    }
    default:
      throw new Error(`unknown export data ${data satisfies never}`);
  }
  return exportResponse(body, format, filename);
}

async function* comparePointBatches(
  db: PrismaClient,
  runs: readonly ExportRun[],
): AsyncGenerator<ComparePointSource[]> {
  // One run at a time: at most one run's points are in memory.
  for (const run of runs) {
    for await (const points of benchmarkPointBatches(db, run.id)) {
      yield points.map((point) => ({ run: { id: run.id, key: run.key, name: run.name }, point }));
    }
  }
}

/**
 * `GET /api/compare/export`: the benchmark points of several runs in one file, each row naming its
 * run (runs in `ids` order, each run's points in run-page order).
 * @throws NotFoundError naming the ids that do not exist (before anything is streamed).
 */
export async function compareExport(
  db: PrismaClient,
  ids: readonly number[],
  format: ExportFormat,
): Promise<Response> {
  const runs = await getExportRuns(db, ids);
  const jsonHead = {
    runs: runs.map((r) => ({ id: r.id, key: r.key, name: r.name, kind: r.kind })),
    data: "points",
  };
  const body = exportStream({
    format,
    table: COMPARE_TABLE,
    jsonHead,
    batches: comparePointBatches(db, runs),
  });
  return exportResponse(body, format, compareExportFilename(ids, format));
}
