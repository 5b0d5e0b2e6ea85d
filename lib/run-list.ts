/**
 * Shared rules of the run list (/runs and `GET /api/runs`): the columns it sorts by and how
 * repeated runs are grouped. No database code, so client components may import it.
 */

/** Columns the run list sorts by. `duration` is seconds from start to end (or now); `peak` is the benchmark headline, peak output tok/s. */
export const RUN_SORTS = [
  "startedAt",
  "name",
  "kind",
  "status",
  "host",
  "duration",
  "peak",
] as const;
/** A run-list sort column. */
export type RunSort = (typeof RUN_SORTS)[number];
/** Sort direction. */
export type SortDir = "asc" | "desc";

/** The list's default order: newest first. */
export const DEFAULT_RUN_SORT: RunSort = "startedAt";

/** Direction a column sorts in when first chosen: figures and times descending (newest, longest, fastest first), text ascending. */
export function defaultSortDir(sort: RunSort): SortDir {
  return sort === "startedAt" || sort === "duration" || sort === "peak" ? "desc" : "asc";
}

/** Column labels, for the headers and the phone's sort select. */
export const RUN_SORT_LABELS: Record<RunSort, string> = {
  startedAt: "Started",
  name: "Name",
  kind: "Kind",
  status: "Status",
  host: "Host",
  duration: "Duration",
  peak: "Peak output",
};

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

/** How the run list groups (`group=` in the URL): absent = repeated runs; `host`, `model` (config.model); `off`. */
export const RUN_GROUP_BYS = ["host", "model", "off"] as const;
/** A `group=` value. */
export type RunGroupBy = (typeof RUN_GROUP_BYS)[number];

/**
 * A run's group key under `group=<by>`: `host:<host>`, `model:<config.model>` (runs without a
 * model get a key of their own, `none:<id>`, and stand alone), else {@link runGroupKey}.
 */
export function runGroupKeyBy(
  by: RunGroupBy | undefined,
  run: { id: number; kind: string; name: string; host: string; config: Record<string, unknown> },
): string {
  if (by === "host") return `host:${run.host}`;
  if (by === "model") {
    const m = run.config.model;
    return typeof m === "string" && m.length > 0 ? `model:${m}` : `none:${run.id}`;
  }
  return runGroupKey(run);
}

/** A group key split back into its parts; null when it is not one {@link runGroupKey} or {@link runGroupKeyBy} writes. */
export function parseRunGroupKey(
  key: string,
):
  { sweep: string } | { kind: string; name: string } | { host: string } | { model: string } | null {
  if (key.startsWith("sweep:") && key.length > "sweep:".length)
    return { sweep: key.slice("sweep:".length) };
  if (key.startsWith("host:") && key.length > "host:".length)
    return { host: key.slice("host:".length) };
  if (key.startsWith("model:") && key.length > "model:".length)
    return { model: key.slice("model:".length) };
  const m = /^name:([a-z]+):(.+)$/s.exec(key);
  return m ? { kind: m[1]!, name: m[2]! } : null;
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
