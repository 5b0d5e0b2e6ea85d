import type { ExportData, ExportFormat } from "./view-models/export";

/** URL builders of the export downloads, so the menu links and the API agree on names. */

/** `GET /api/runs/:id/export?data=…&format=…`: one run's points, metrics, eval results or progress. */
export function runExportPath(runId: number, data: ExportData, format: ExportFormat): string {
  return `/api/runs/${runId}/export?data=${data}&format=${format}`;
}

/** `GET /api/compare/export?ids=1,2&format=…`: the benchmark points of several runs in one file. */
export function compareExportPath(ids: readonly number[], format: ExportFormat): string {
  return `/api/compare/export?ids=${ids.join(",")}&format=${format}`;
}

/** Download file name of a run export: `run-42-points.csv`. */
export function runExportFilename(runId: number, data: ExportData, format: ExportFormat): string {
  return `run-${runId}-${data}.${format}`;
}

/** Download file name of a comparison export: `compare-1-2-points.json`. */
export function compareExportFilename(ids: readonly number[], format: ExportFormat): string {
  return `compare-${ids.join("-")}-points.${format}`;
}
