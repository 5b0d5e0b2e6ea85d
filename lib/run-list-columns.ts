import { flattenConfig } from "./run-config";

/**
 * The run table's chosen columns (`/runs?cols=…`, docs/decisions.md "Run list"): which of the
 * built-in columns show, plus config keys (`config.tp`, `config.spec.draft`) as extra columns.
 * Kind and name always show. Pure functions, safe in client components.
 */

/** Built-in columns that may be hidden, in table order. */
export const RUN_BASE_COLUMNS = [
  "model",
  "engine",
  "host",
  "status",
  "startedAt",
  "duration",
  "peak",
] as const;
/** A built-in optional column. */
export type RunBaseColumn = (typeof RUN_BASE_COLUMNS)[number];

/** Labels of the built-in optional columns, for the column menu. */
export const RUN_BASE_COLUMN_LABELS: Record<RunBaseColumn, string> = {
  model: "Model",
  engine: "Engine",
  host: "Host",
  status: "Status",
  startedAt: "Started",
  duration: "Duration",
  peak: "Peak output",
};

/** Most config columns one view may carry. */
export const MAX_CONFIG_COLUMNS = 12;
/** The `cols` value that hides every optional column (an empty value is dropped from URLs). */
export const NO_COLUMNS = "none";

const CONFIG_PREFIX = "config.";
const METRIC_PREFIX = "metric.";
/** A metric key the run list can show or sort by: 1-200 characters, no comma (lists are comma-separated) and no control character. */
export const LISTABLE_METRIC_KEY = /^[^,\u0000-\u001f]{1,200}$/;
/** Most metric columns one view may carry (each is one more read per page). */
export const MAX_METRIC_COLUMNS = 8;
/** A dotted config path: letters, digits, `_`, `-`, `.`; at most 100 characters. */
export const CONFIG_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * A column choice: built-in columns in table order, then config key paths (without `config.`) in
 * chosen order, then metric keys (without `metric.`: each run's latest finite value) in chosen order.
 */
export interface RunColumns {
  base: RunBaseColumn[];
  config: string[];
  metric: string[];
}

/** What shows without a `cols` parameter: every built-in column, no config columns. */
export const DEFAULT_RUN_COLUMNS: RunColumns = {
  base: [...RUN_BASE_COLUMNS],
  config: [],
  metric: [],
};

/**
 * Parses a `cols` value: comma-separated built-in column ids, `config.<path>` and `metric.<key>`
 * entries (duplicates dropped), or `none`. Returns null when any entry is unknown or malformed,
 * the value is over 2,000 characters, or it names more than {@link MAX_CONFIG_COLUMNS} config
 * keys or {@link MAX_METRIC_COLUMNS} metric keys; the caller then ignores the parameter and says so.
 */
export function parseRunColumns(text: string): RunColumns | null {
  if (text.length > 2000) return null;
  if (text.trim() === NO_COLUMNS) return { base: [], config: [], metric: [] };
  const base = new Set<RunBaseColumn>();
  const config: string[] = [];
  const metric: string[] = [];
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if ((RUN_BASE_COLUMNS as readonly string[]).includes(part)) base.add(part as RunBaseColumn);
    else if (part.startsWith(CONFIG_PREFIX)) {
      const path = part.slice(CONFIG_PREFIX.length);
      if (path.length > 100 || !CONFIG_PATH.test(path)) return null;
      if (!config.includes(path)) config.push(path);
    } else if (part.startsWith(METRIC_PREFIX)) {
      const key = part.slice(METRIC_PREFIX.length);
      if (!LISTABLE_METRIC_KEY.test(key)) return null;
      if (!metric.includes(key)) metric.push(key);
    } else return null;
  }
  if (config.length > MAX_CONFIG_COLUMNS || metric.length > MAX_METRIC_COLUMNS) return null;
  return { base: RUN_BASE_COLUMNS.filter((c) => base.has(c)), config, metric };
}

/** A column choice as its `cols` value; undefined for the default (so URLs stay short). */
export function formatRunColumns(cols: RunColumns): string | undefined {
  if (sameColumns(cols, DEFAULT_RUN_COLUMNS)) return undefined;
  const parts = [
    ...cols.base,
    ...cols.config.map((k) => CONFIG_PREFIX + k),
    ...cols.metric.map((k) => METRIC_PREFIX + k),
  ];
  return parts.length === 0 ? NO_COLUMNS : parts.join(",");
}

function sameColumns(a: RunColumns, b: RunColumns): boolean {
  return (
    a.base.join(",") === b.base.join(",") &&
    a.config.join(",") === b.config.join(",") &&
    a.metric.join(",") === b.metric.join(",")
  );
}

/**
 * Config key paths offered as columns for a page of runs: every leaf key any run's config has
 * (nested objects flattened with "."), except `model`, `engine` and `engineVersion` (built-in
 * columns), sorted by how many runs carry them, then by name; at most `max`.
 */
export function configColumnKeys(
  configs: ReadonlyArray<Record<string, unknown>>,
  max = 40,
): string[] {
  const counts = new Map<string, number>();
  for (const c of configs)
    for (const [k, v] of flattenConfig(c))
      if (v !== null && v !== undefined && CONFIG_PATH.test(k) && k.length <= 100)
        counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of ["model", "engine", "engineVersion"]) counts.delete(k);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([k]) => k);
}

/** A run's value at a dotted config path (undefined when it lacks it). */
export function configValueAt(config: Record<string, unknown>, path: string): unknown {
  let v: unknown = config;
  for (const part of path.split(".")) {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}
