/**
 * Downloads of a run's data (`GET /api/runs/:id/export`) and of a comparison
 * (`GET /api/compare/export`): what can be exported, in which formats, and the shape of the
 * summary the export menu reads. Plain values, so client code may import them. The columns of
 * each export are documented in docs/api.md ("Export").
 */

/** What a run export holds: benchmark points, metric points, eval results or progress reports. */
export const EXPORT_DATA = ["points", "metrics", "evals", "progress"] as const;
export type ExportData = (typeof EXPORT_DATA)[number];

/** File formats: CSV (RFC 4180, CRLF, header row) or JSON (`{run, data, rows}`). */
export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Human labels of the data kinds, in menu order. */
export const EXPORT_DATA_LABELS: Record<ExportData, string> = {
  points: "Benchmark points",
  metrics: "Metric points",
  evals: "Eval results",
  progress: "Progress reports",
};

/** Rows stored per data kind of one run (`GET /api/runs/:id/export/summary`). */
export interface RunExportSummary {
  runId: number;
  /** Row count an export of each kind would hold (0: nothing to export). */
  rows: Record<ExportData, number>;
}
