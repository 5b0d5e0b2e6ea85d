/**
 * Shared rules of the run list (/runs and `GET /api/runs`): the columns it sorts by and how
 * repeated runs are grouped. No database code, so client components may import it.
 */

import { CONFIG_PATH, configValueAt, LISTABLE_METRIC_KEY } from "./run-list-columns";

/** Built-in columns the run list sorts by. `duration` is seconds from start to end (or now); `peak` is the benchmark headline, peak output tok/s. */
export const RUN_SORTS = [
  "startedAt",
  "name",
  "kind",
  "status",
  "host",
  "duration",
  "peak",
] as const;
/** A built-in run-list sort column. */
export type BuiltinRunSort = (typeof RUN_SORTS)[number];
/**
 * A keyed sort: `config.<path>` (a run's config value there: numbers by value before text, runs
 * without one last) or `metric.<key>` (the run's latest finite value of that metric, runs without
 * one last). Paged by number only (no cursor).
 */
export type KeyedRunSort = `config.${string}` | `metric.${string}`;
/** A run-list sort: a built-in column or a keyed one. */
export type RunSort = BuiltinRunSort | KeyedRunSort;
/** Sort direction. */
export type SortDir = "asc" | "desc";

/** The list's default order: newest first. */
export const DEFAULT_RUN_SORT: RunSort = "startedAt";

/** `config.<path>` / `metric.<key>` split into its parts; null for a built-in or malformed sort. */
export function keyedSortOf(
  sort: string,
): { source: "config"; path: string } | { source: "metric"; key: string } | null {
  if (sort.startsWith("config.")) {
    const path = sort.slice("config.".length);
    return path.length <= 100 && CONFIG_PATH.test(path) ? { source: "config", path } : null;
  }
  if (sort.startsWith("metric.")) {
    const key = sort.slice("metric.".length);
    return LISTABLE_METRIC_KEY.test(key) ? { source: "metric", key } : null;
  }
  return null;
}

/** A `sort=` value parsed: a built-in column or a well-formed keyed sort, else null. */
export function parseRunSort(text: string): RunSort | null {
  if ((RUN_SORTS as readonly string[]).includes(text)) return text as BuiltinRunSort;
  return keyedSortOf(text) ? (text as KeyedRunSort) : null;
}

/** Direction a column sorts in when first chosen: figures and times descending (newest, longest, fastest, highest metric first), text and config ascending. */
export function defaultSortDir(sort: RunSort): SortDir {
  return sort === "startedAt" ||
    sort === "duration" ||
    sort === "peak" ||
    sort.startsWith("metric.")
    ? "desc"
    : "asc";
}

/** Column labels of the built-in sorts, for the headers and the phone's sort select. */
export const RUN_SORT_LABELS: Record<BuiltinRunSort, string> = {
  startedAt: "Started",
  name: "Name",
  kind: "Kind",
  status: "Status",
  host: "Host",
  duration: "Duration",
  peak: "Peak output",
};

/** A sort's label: the built-in column's, or the config path / metric key itself. */
export function runSortLabel(sort: RunSort): string {
  const keyed = keyedSortOf(sort);
  if (!keyed) return RUN_SORT_LABELS[sort as BuiltinRunSort];
  return keyed.source === "config" ? keyed.path : keyed.key;
}

/**
 * The sweep id a run declares in `config.sweep` (a non-empty string, or a number), else null.
 * Workers set it in `run.start`'s config (`config: { sweep: "…" }`); `pitwall run` has no option for it yet.
 */
export function sweepIdOf(config: Record<string, unknown>): string | null {
  const v = config.sweep;
  if (typeof v === "string") return v.length > 0 ? v : null;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/**
 * Key that groups repeated runs (docs/decisions.md, "Run list"): `sweep:<id>` for runs that
 * declare `config.sweep`; otherwise `name:<kind>:<name>`, so re-running the same named job (an
 * import or `pitwall run --name` repeated) groups too. Runs on different hosts may share a group.
 */
export function runGroupKey(run: {
  kind: string;
  name: string;
  config: Record<string, unknown>;
}): string {
  const sweep = sweepIdOf(run.config);
  return sweep !== null ? `sweep:${sweep}` : `name:${run.kind}:${run.name}`;
}

/** How the run list groups (`group=` in the URL): absent = repeated runs; `host`, `model` (config.model); `off`; or `config.<path>` (any config key). */
export const RUN_GROUP_BYS = ["host", "model", "off"] as const;
/** A `group=` value: a built-in grouping or `config.<path>`. */
export type RunGroupBy = (typeof RUN_GROUP_BYS)[number] | `config.${string}`;

/** A `group=` value parsed: a built-in grouping or `config.<path>` with a well-formed path, else null. */
export function parseRunGroupBy(text: string): RunGroupBy | null {
  if ((RUN_GROUP_BYS as readonly string[]).includes(text)) return text as RunGroupBy;
  const keyed = keyedSortOf(text);
  return keyed?.source === "config" ? (text as RunGroupBy) : null;
}

/**
 * A config value as a group's value: strings, finite numbers and booleans as text (the SQL twin
 * is `config #>> path` for those JSON types); null for anything else (the run stands alone).
 */
export function configGroupValue(v: unknown): string | null {
  if (typeof v === "string") return v.length > 0 ? v : null;
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : null;
  if (typeof v === "boolean") return String(v);
  return null;
}

/**
 * A run's group key under `group=<by>`: `host:<host>`, `model:<config.model>`,
 * `config:<path>=<value>` (runs without a model or that config value share one "not set" group,
 * `unset:model` / `unset:config.<path>`, as W&B groups missing values together), else
 * {@link runGroupKey}.
 */
export function runGroupKeyBy(
  by: RunGroupBy | undefined,
  run: { id: number; kind: string; name: string; host: string; config: Record<string, unknown> },
): string {
  if (by === "host") return `host:${run.host}`;
  if (by === "model") {
    const m = run.config.model;
    return typeof m === "string" && m.length > 0 ? `model:${m}` : "unset:model";
  }
  const keyed = by ? keyedSortOf(by) : null;
  if (keyed?.source === "config") {
    const v = configGroupValue(configValueAt(run.config, keyed.path));
    return v === null ? `unset:${by}` : `config:${keyed.path}=${v}`;
  }
  return runGroupKey(run);
}

/** A group key split back into its parts; null when it is not one {@link runGroupKey} or {@link runGroupKeyBy} writes. */
export function parseRunGroupKey(
  key: string,
):
  | { sweep: string }
  | { kind: string; name: string }
  | { host: string }
  | { model: string }
  | { configPath: string; value: string }
  | { unset: "model" }
  | { unset: "config"; configPath: string }
  | null {
  if (key === "unset:model") return { unset: "model" };
  const u = /^unset:config\.([A-Za-z0-9_.-]{1,100})$/.exec(key);
  if (u && CONFIG_PATH.test(u[1]!)) return { unset: "config", configPath: u[1]! };
  if (key.startsWith("sweep:") && key.length > "sweep:".length)
    return { sweep: key.slice("sweep:".length) };
  if (key.startsWith("host:") && key.length > "host:".length)
    return { host: key.slice("host:".length) };
  if (key.startsWith("model:") && key.length > "model:".length)
    return { model: key.slice("model:".length) };
  const c = /^config:([A-Za-z0-9_.-]{1,100})=(.+)$/s.exec(key);
  if (c && CONFIG_PATH.test(c[1]!)) return { configPath: c[1]!, value: c[2]! };
  const m = /^name:([a-z]+):(.+)$/s.exec(key);
  return m ? { kind: m[1]!, name: m[2]! } : null;
}

/** A group's label: the sweep id, host, model, `path = value`, `model not set` / `path not set`, or the shared run name. */
export function runGroupLabel(key: string): string {
  const p = parseRunGroupKey(key);
  if (p === null) return key;
  if ("unset" in p) return p.unset === "model" ? "model not set" : `${p.configPath} not set`;
  if ("sweep" in p) return p.sweep;
  if ("host" in p) return p.host;
  if ("model" in p) return p.model;
  if ("configPath" in p) return `${p.configPath} = ${p.value}`;
  return p.name;
}

/** One entry of the displayed list: a run on its own, or a group of repeated runs with the page's members in list order. */
export type RunListItem<R> = { type: "run"; run: R } | { type: "group"; key: string; members: R[] };

/**
 * Folds a page of runs into display items: runs whose group is in `groupKeys` (groups with two or
 * more matching runs) are gathered under one item at the position of the first of them.
 */
export function foldRunGroups<R extends { groupKey: string }>(
  runs: readonly R[],
  groupKeys: ReadonlySet<string>,
): RunListItem<R>[] {
  const items: RunListItem<R>[] = [];
  const open = new Map<string, R[]>();
  for (const run of runs) {
    if (!groupKeys.has(run.groupKey)) {
      items.push({ type: "run", run });
      continue;
    }
    const members = open.get(run.groupKey);
    if (members) members.push(run);
    else {
      const list = [run];
      open.set(run.groupKey, list);
      items.push({ type: "group", key: run.groupKey, members: list });
    }
  }
  return items;
}
