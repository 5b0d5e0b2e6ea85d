import Papa from "papaparse";

import { baseName, iterateLines, type ImportProblem } from "./source-text";
import { parseNumberLike } from "./source-values";
import {
  contentHashOf,
  parseStepValue,
  readMetricValue,
  TrainingImportError,
  type ParsedTrainingLog,
  type TrainingFormatModule,
  type TrainingMetric,
} from "./training-common";
import { RepeatedSteps } from "./training-repeats";

/**
 * CSV metric tables: `step,loss,lr,…` with one row per logged step, as training scripts write
 * them with `csv.writer` / `pandas.DataFrame.to_csv`, Lightning's `CSVLogger` (`metrics.csv`:
 * `epoch,step,train_loss,…`, blank cells where a row does not log a metric), W&B's history export
 * (`_step`, `_timestamp`, `_runtime`) and TensorBoard's "Download CSV" (`Wall time,Step,Value`).
 * A file may hold several such tables separated by a blank line (a train table and an eval table),
 * each with its own header; all of them are one run.
 *
 * Mapping:
 * - Step: the column named `step`, `global_step` or `_step` (case-insensitive, first that exists).
 *   A row without a valid step is a problem.
 * - Metrics: every other column under its header name; empty cells are skipped (never 0); numbers
 *   are read as `parseNumberLike` does (`nan`, `inf` kept); other text is a problem. A TensorBoard
 *   export's lone `Value` column is named after the file (`train_loss.csv` → `train_loss`). An
 *   unnamed leading index column (pandas `to_csv` with its index) is skipped.
 * - Wall-clock columns (`wall_time`, `Wall time`, `timestamp`, `_timestamp`, `time`: epoch seconds,
 *   epoch milliseconds above 1e11, or ISO 8601 text) are not metrics: the earliest and latest give
 *   the run's start and end. `_runtime` (W&B seconds since start) stays a metric.
 * - The same step with the same columns in two rows (two tables repeating steps, a resumed run)
 *   is counted as a repeated step; the later row wins.
 * - No planned steps: the run ends `ended` at its last step (outcome unknown).
 * - Identity (run key): the first table's header line and first data row (stable while the file grows).
 */

const STEP_COLUMNS = ["step", "global_step", "_step"] as const;
const TIME_COLUMNS: ReadonlySet<string> = new Set([
  "wall_time",
  "wall time",
  "timestamp",
  "_timestamp",
  "time",
]);
/** How many non-blank lines detection reads before giving up on finding a header. */
const DETECT_MAX_LINES = 5;

/** One table of the file: its header cells and the 1-based line of each of its rows. */
interface Table {
  headerLine: number;
  header: string[];
  rows: Array<{ line: number; cells: string[] }>;
}

/** Index of the step column of a header, or -1. */
function stepColumn(header: readonly string[]): number {
  const lower = header.map((h) => h.trim().toLowerCase());
  for (const name of STEP_COLUMNS) {
    const i = lower.indexOf(name);
    if (i >= 0) return i;
  }
  return -1;
}

/** Splits one CSV line into cells (papaparse: quotes, embedded commas). */
function cellsOf(line: string): string[] {
  const parsed = Papa.parse<string[]>(line, { header: false, skipEmptyLines: false });
  return parsed.data[0] ?? [];
}

/**
 * True when the text is a CSV metric table: its first non-blank line is a header of at least two
 * comma-separated cells, one of them a step column (`step`, `global_step`, `_step`), and a later
 * line has a number in that column. Never throws.
 */
export function isMetricsCsv(text: string): boolean {
  let header: string[] | null = null;
  let col = -1;
  let seen = 0;
  for (const { text: line } of iterateLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)) {
    if (!/\S/.test(line)) continue;
    if (++seen > DETECT_MAX_LINES) return false;
    if (header === null) {
      if (line.trimStart().startsWith("{") || line.trimStart().startsWith("[")) return false;
      header = cellsOf(line);
      col = stepColumn(header);
      if (header.length < 2 || col < 0) return false;
      continue;
    }
    return parseStepValue(cellsOf(line)[col]?.trim()) !== null;
  }
  return false;
}

/** The tables of the text: blocks of non-blank lines separated by blank lines, each led by its header. */
function readTables(text: string): Table[] {
  const tables: Table[] = [];
  let current: Table | null = null;
  for (const { line, text: lineText } of iterateLines(text)) {
    if (!/\S/.test(lineText)) {
      current = null;
      continue;
    }
    const cells = cellsOf(lineText);
    if (current === null) {
      current = { headerLine: line, header: cells.map((c) => c.trim()), rows: [] };
      tables.push(current);
    } else current.rows.push({ line, cells });
  }
  return tables;
}

/** Epoch ms of a wall-clock cell: epoch seconds, epoch ms (> 1e11) or ISO text; null otherwise. */
function wallClockMs(cell: string): number | null {
  const n = parseNumberLike(cell);
  if (n !== null) return Number.isFinite(n) && n > 0 ? Math.round(n > 1e11 ? n : n * 1000) : null;
  const t = Date.parse(cell);
  return Number.isFinite(t) && t > 0 ? t : null;
}

/** Parses one CSV metrics text; see the module comment for the mapping. */
function parse(
  path: string,
  text: string,
): { parsed: ParsedTrainingLog; problems: ImportProblem[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const problems: ImportProblem[] = [];
  const metrics: TrainingMetric[] = [];
  const repeats = new RepeatedSteps();
  let lastStep: number | null = null;
  let startedAtMs: number | null = null;
  let endedAtMs: number | null = null;
  let identity: string | null = null;
  const fileKey = baseName(path).replace(/\.csv$/i, "") || "value";

  for (const table of readTables(body)) {
    const col = stepColumn(table.header);
    if (col < 0) {
      problems.push({
        file: path,
        line: table.headerLine,
        message: `table header without a step column (${STEP_COLUMNS.join(", ")}); its ${table.rows.length} rows skipped`,
      });
      continue;
    }
    const valueColumns = table.header.filter(
      (h, i) => i !== col && !TIME_COLUMNS.has(h.toLowerCase()) && h !== "",
    );
    const keyOf = (h: string) =>
      h.toLowerCase() === "value" && valueColumns.length === 1 ? fileKey : h;
    for (const row of table.rows) {
      const where = { file: path, line: row.line };
      const step = parseStepValue(row.cells[col]?.trim());
      if (step === null) {
        problems.push({
          ...where,
          message: `invalid step ${JSON.stringify(row.cells[col] ?? "").slice(0, 40)}; row skipped`,
        });
        continue;
      }
      identity ??= `metrics-csv\n${table.header.join(",")}\n${row.cells.join(",")}`;
      const from = metrics.length;
      table.header.forEach((h, i) => {
        if (i === col || h === "") return;
        const cell = (row.cells[i] ?? "").trim();
        if (cell === "") return;
        if (TIME_COLUMNS.has(h.toLowerCase())) {
          const ms = wallClockMs(cell);
          if (ms === null)
            problems.push({
              ...where,
              message: `'${h}' at step ${step}: not a time: ${JSON.stringify(cell).slice(0, 60)}; skipped`,
            });
          else {
            startedAtMs = startedAtMs === null ? ms : Math.min(startedAtMs, ms);
            endedAtMs = endedAtMs === null ? ms : Math.max(endedAtMs, ms);
          }
          return;
        }
        const v = readMetricValue(cell);
        if (v.kind === "invalid")
          problems.push({
            ...where,
            message: `'${h.slice(0, 60)}' at step ${step}: ${v.message}; skipped`,
          });
        else if (v.kind === "value")
          metrics.push({ key: keyOf(h).slice(0, 200), step, value: v.value });
      });
      repeats.add(step, metrics.slice(from));
      lastStep = lastStep === null ? step : Math.max(lastStep, step);
    }
  }

  if (identity === null) {
    const first = problems[0];
    throw new TrainingImportError(
      path,
      `${path}: not a CSV metric table: no data row with a step${first ? ` (line ${first.line}: ${first.message})` : ""}`,
    );
  }
  return {
    parsed: {
      path,
      contentHash: contentHashOf(text),
      format: "metrics-csv",
      identity,
      metrics,
      lastStep,
      totalSteps: null,
      finished: false,
      repeatedSteps: repeats.summary(),
      startedAtMs,
      endedAtMs,
      config: { tool: "csv" },
    },
    problems,
  };
}

/** The CSV metric tables module (detected on the text: {@link isMetricsCsv}). */
export const metricsCsv: TrainingFormatModule = {
  format: "metrics-csv",
  tool: "CSV metric table",
  recognises: () => false,
  recognisesText: isMetricsCsv,
  parse,
};
