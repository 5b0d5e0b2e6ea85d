import { tauOf, tokensProduced } from "@/lib/metrics/tau";
import type { BenchmarkPointView } from "@/lib/view-models";

/**
 * The columns of every export, in file order, with units in their names (documented in
 * docs/api.md, "Export"). One table definition feeds both formats: a CSV row is the columns'
 * cells in order, a JSON row is an object with the same names (plus nested extras such as a
 * point's `raw` source row that a CSV cell would only flatten badly). Pure, no I/O.
 */

/** One cell as the table produces it: null = not measured (empty in CSV, null in JSON). */
export type Cell = string | number | bigint | boolean | null;

/** A column: its name (with unit) and how to read it from a source row. */
export interface ExportColumn<S> {
  name: string;
  get: (source: S) => Cell;
}

/** A table of one export: the columns in order and the JSON-only extras of a row. */
export interface ExportTable<S> {
  columns: ReadonlyArray<ExportColumn<S>>;
  /** Fields a JSON row carries after the columns (e.g. `raw`), never written to CSV. */
  jsonExtras?: (source: S) => Record<string, unknown>;
}

/** Column names of a table, in order. */
export function columnNames<S>(table: ExportTable<S>): string[] {
  return table.columns.map((c) => c.name);
}

/** A row as CSV cells keyed by column name (what papaparse's `unparse` takes with `fields`). */
export function csvRecord<S>(table: ExportTable<S>, source: S): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const c of table.columns) out[c.name] = c.get(source);
  return out;
}

/**
 * A row as a JSON object: the columns (a bigint within ±2^53 as a number, beyond it a decimal
 * string, like every Pitwall read), then the table's extras. Non-finite numbers stay numbers
 * here; the JSON writer turns them into "NaN" / "Infinity" / "-Infinity".
 */
export function jsonRecord<S>(table: ExportTable<S>, source: S): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of table.columns) {
    const v = c.get(source);
    out[c.name] = typeof v === "bigint" ? bigintValue(v) : v;
  }
  return table.jsonExtras ? { ...out, ...table.jsonExtras(source) } : out;
}

/** A bigint as a number when exactly representable, else its decimal string. */
export function bigintValue(v: bigint): number | string {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : v.toString();
}

const iso = (d: Date): string => d.toISOString();

/** Benchmark point columns (a point as the run page shows it, `raw` in JSON only). */
export const POINT_TABLE: ExportTable<BenchmarkPointView> = {
  columns: [
    { name: "key", get: (p) => p.key },
    { name: "ord", get: (p) => p.ord },
    { name: "scenario", get: (p) => p.scenario },
    { name: "dataset", get: (p) => p.dataset },
    { name: "concurrency", get: (p) => p.concurrency },
    { name: "measuredConcurrency", get: (p) => p.measuredConcurrency },
    { name: "requestRateReqPerS", get: (p) => p.requestRate },
    { name: "requestRateUnbounded", get: (p) => p.requestRateUnbounded },
    { name: "inputLenTok", get: (p) => p.inputLen },
    { name: "outputLenTok", get: (p) => p.outputLen },
    { name: "completedRequests", get: (p) => p.completed },
    { name: "failedRequests", get: (p) => p.failed },
    { name: "durationS", get: (p) => p.durationS },
    { name: "requestThroughputReqPerS", get: (p) => p.requestThroughput },
    { name: "outputTokPerS", get: (p) => p.outputTokPerS },
    { name: "totalTokPerS", get: (p) => p.totalTokPerS },
    { name: "ttftMsMean", get: (p) => p.ttftMsMean },
    { name: "ttftMsMedian", get: (p) => p.ttftMsMedian },
    { name: "ttftMsP99", get: (p) => p.ttftMsP99 },
    { name: "tpotMsMean", get: (p) => p.tpotMsMean },
    { name: "tpotMsMedian", get: (p) => p.tpotMsMedian },
    { name: "tpotMsP99", get: (p) => p.tpotMsP99 },
    { name: "itlMsMean", get: (p) => p.itlMsMean },
    { name: "itlMsMedian", get: (p) => p.itlMsMedian },
    { name: "itlMsP99", get: (p) => p.itlMsP99 },
    { name: "e2eMsMean", get: (p) => p.e2eMsMean },
    { name: "e2eMsMedian", get: (p) => p.e2eMsMedian },
    { name: "e2eMsP99", get: (p) => p.e2eMsP99 },
    { name: "acceptLengthTokPerStep", get: (p) => p.acceptLength },
    { name: "updatedAt", get: (p) => p.updatedAt },
  ],
  jsonExtras: (p) => ({ raw: p.raw }),
};

/** The run a compared point belongs to. */
export interface ComparePointSource {
  run: { id: number; key: string; name: string };
  point: BenchmarkPointView;
}

/** Comparison columns: the run (id, key, name), then every benchmark point column. */
export const COMPARE_TABLE: ExportTable<ComparePointSource> = {
  columns: [
    { name: "runId", get: (s) => s.run.id },
    { name: "runKey", get: (s) => s.run.key },
    { name: "runName", get: (s) => s.run.name },
    ...POINT_TABLE.columns.map((c) => ({
      name: c.name,
      get: (s: ComparePointSource) => c.get(s.point),
    })),
  ],
  jsonExtras: (s) => ({ raw: s.point.raw }),
};

/** One stored metric point. */
export interface MetricSource {
  key: string;
  step: bigint;
  value: number;
  ts: Date;
}

/** Metric point columns: every stored point of every key, by key then step. */
export const METRIC_TABLE: ExportTable<MetricSource> = {
  columns: [
    { name: "key", get: (m) => m.key },
    { name: "step", get: (m) => m.step },
    { name: "value", get: (m) => m.value },
    { name: "ts", get: (m) => iso(m.ts) },
  ],
};

/** One stored eval result (raw counts). */
export interface EvalSource {
  key: string;
  checkpointStep: bigint | null;
  checkpointLabel: string | null;
  checkpointUri: string | null;
  promptId: string;
  category: string | null;
  dataset: string | null;
  verifySteps: number;
  acceptedTokens: number;
  draft: Record<string, unknown>;
  outputTokPerS: number | null;
  ts: Date;
}

/** Counts that {@link tauOf} accepts (stored rows always do; anything else exports τ as null). */
function validCounts(e: EvalSource): boolean {
  return (
    Number.isFinite(e.verifySteps) &&
    e.verifySteps > 0 &&
    Number.isFinite(e.acceptedTokens) &&
    e.acceptedTokens >= 0
  );
}

/** The object with its keys in code-unit order (PostgreSQL's jsonb keeps its own order; a file should not). */
function sortedKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Eval result columns: the raw counts and the derived tokens produced and τ (lib/metrics/tau.ts). */
export const EVAL_TABLE: ExportTable<EvalSource> = {
  columns: [
    { name: "key", get: (e) => e.key },
    { name: "checkpointStep", get: (e) => e.checkpointStep },
    { name: "checkpointLabel", get: (e) => e.checkpointLabel },
    { name: "checkpointUri", get: (e) => e.checkpointUri },
    { name: "promptId", get: (e) => e.promptId },
    { name: "category", get: (e) => e.category },
    { name: "dataset", get: (e) => e.dataset },
    { name: "verifySteps", get: (e) => e.verifySteps },
    { name: "acceptedTokens", get: (e) => e.acceptedTokens },
    { name: "tokensProduced", get: (e) => (validCounts(e) ? tokensProduced(e) : null) },
    { name: "tau", get: (e) => (validCounts(e) ? tauOf(e) : null) },
    // Draft settings are a small flat object: compact JSON text in one CSV cell, an object in JSON.
    {
      name: "draft",
      get: (e) => (Object.keys(e.draft).length === 0 ? null : JSON.stringify(sortedKeys(e.draft))),
    },
    { name: "outputTokPerS", get: (e) => e.outputTokPerS },
    { name: "ts", get: (e) => iso(e.ts) },
  ],
  jsonExtras: (e) => ({ draft: sortedKeys(e.draft) }),
};

/** One stored progress report of a worker (counters: that worker's monotonic totals after it). */
export interface ProgressSource {
  ts: Date;
  workerId: string;
  bootId: string;
  done: number | null;
  counters: Record<string, number>;
}

/** Prefix of the counter columns of a progress export (`counters.s3.uploaded`). */
export const COUNTER_COLUMN_PREFIX = "counters.";

/**
 * Progress report columns: time, worker, boot, items done, then one column per counter name the
 * run ever reported (`counters.<name>`, sorted; empty when a report lacks it). JSON rows carry
 * `counters` as one object instead of the flattened columns.
 */
export function progressTable(counterNames: readonly string[]): ExportTable<ProgressSource> {
  return {
    columns: [
      { name: "ts", get: (p) => iso(p.ts) },
      { name: "workerId", get: (p) => p.workerId },
      { name: "bootId", get: (p) => p.bootId },
      { name: "doneItems", get: (p) => p.done },
      ...counterNames.map((n) => ({
        name: `${COUNTER_COLUMN_PREFIX}${n}`,
        get: (p: ProgressSource) => p.counters[n] ?? null,
      })),
    ],
  };
}

/** JSON rows of progress: the fixed columns plus `counters` as one object (no flattened columns). */
export const PROGRESS_JSON_TABLE: ExportTable<ProgressSource> = {
  columns: progressTable([]).columns,
  jsonExtras: (p) => ({ counters: p.counters }),
};
