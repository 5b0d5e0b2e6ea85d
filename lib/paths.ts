import type { RunListQuery } from "./api/runs";
import { parseRunGroupBy, parseRunSort } from "./run-list";
import { formatRunColumns, parseRunColumns } from "./run-list-columns";
import type { RunState, RunSummary } from "./view-models";

/**
 * URL builders for pages and API reads, so links and fetches agree on parameter names.
 * Empty values are left out, keeping URLs short and shareable.
 */

/** Filters of the run list as they appear in `/runs?…` and `/api/runs?…` (the contract's type, lib/api/runs.ts). */
export type { RunListQuery };

/** The query-string parameters of a run-list query, in URL order (the same for the page and the API). */
function runListParams(q: RunListQuery): Record<string, string | undefined> {
  return {
    kind: q.kind,
    status: q.status,
    host: q.host,
    tag: q.tag,
    q: q.q,
    archived: q.archived,
    sweep: q.sweep,
    sort: q.sort,
    dir: q.dir,
    group: q.group,
    cols: q.cols ? formatRunColumns(q.cols) : undefined,
    cursor: q.cursor,
    page: q.page && q.page > 1 ? String(q.page) : undefined,
  };
}

/** A run-list query as a query string without "?" and without the cursor (what a saved view stores). */
export function runListSearch(q: RunListQuery): string {
  return query({ ...runListParams(q), cursor: undefined, page: undefined }).slice(1);
}

/** Run kinds in the order the filter offers them. */
export const RUN_KIND_OPTIONS: readonly RunSummary["kind"][] = [
  "benchmark",
  "extraction",
  "generation",
  "training",
  "eval",
  "serving",
];
/** Run states in the order the filter offers them. */
export const RUN_STATE_OPTIONS: readonly RunState[] = [
  "running",
  "stale",
  "succeeded",
  "failed",
  "cancelled",
  "ended",
];

function query(params: Record<string, string | undefined>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") sp.set(k, v);
  const s = sp.toString();
  return s ? `?${s}` : "";
}

/** `/runs` with filters (and an optional cursor). */
export function runsPath(q: RunListQuery = {}): string {
  return `/runs${query(runListParams(q))}`;
}

/** `/runs/:id`. */
export function runPath(id: number): string {
  return `/runs/${id}`;
}

/** `/compare?ids=1,2,3`. */
export function comparePath(ids: readonly number[]): string {
  return ids.length ? `/compare?ids=${ids.join(",")}` : "/compare";
}

/**
 * `GET /api/runs` with the same filters as the page (lib/api/fetchers/runs.ts `fetchRuns` reads
 * through it); the page's metric columns become `metrics=`, the other columns stay in the page.
 */
export function apiRunsPath(q: RunListQuery = {}): string {
  const metrics = q.cols?.metric.length ? q.cols.metric.join(",") : undefined;
  return `/api/runs${query({ ...runListParams({ ...q, cols: undefined }), metrics })}`;
}

/** Most runs one comparison (page or export) takes. */
export const MAX_COMPARE_RUNS = 12;

/**
 * Strict form of {@link parseIds} for the API: every comma-separated part must be a positive
 * integer and there may be at most {@link MAX_COMPARE_RUNS} distinct ids; otherwise a message
 * saying what is wrong. Duplicates are dropped, order is kept.
 */
export function parseIdList(
  value: string | string[] | undefined,
): { ok: true; ids: number[] } | { ok: false; message: string } {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  const parts = text.split(",").map((p) => p.trim());
  const bad = parts.filter(
    (p) => !/^\d+$/.test(p) || !Number.isSafeInteger(Number(p)) || Number(p) <= 0,
  );
  if (text.trim() === "")
    return { ok: false, message: "ids must list one or more run ids, e.g. ids=1,2" };
  if (bad.length > 0)
    return {
      ok: false,
      message: `ids must be positive integers separated by commas; not: ${bad.map((b) => JSON.stringify(b)).join(", ")}`,
    };
  const ids = [...new Set(parts.map(Number))];
  if (ids.length > MAX_COMPARE_RUNS)
    return {
      ok: false,
      message: `at most ${MAX_COMPARE_RUNS} runs per comparison; got ${ids.length}`,
    };
  return { ok: true, ids };
}

/** Parses `ids=1,2,3` into distinct positive integers (order kept, junk dropped, at most 12). */
export function parseIds(value: string | string[] | undefined): number[] {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  const ids: number[] = [];
  for (const part of text.split(",")) {
    const n = Number(part.trim());
    if (part.trim() !== "" && Number.isSafeInteger(n) && n > 0 && !ids.includes(n)) ids.push(n);
  }
  return ids.slice(0, MAX_COMPARE_RUNS);
}

type SearchParams = Record<string, string | string[] | undefined>;

function first(v: string | string[] | undefined): string | undefined {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

/**
 * Reads run-list filters from page search params. Unknown kinds/states and over-long values are
 * dropped and reported in `ignored` (by parameter name) instead of failing the page.
 */
export function parseRunListQuery(sp: SearchParams): { query: RunListQuery; ignored: string[] } {
  const query: RunListQuery = {};
  const ignored: string[] = [];
  const kind = first(sp.kind);
  if (kind) {
    if ((RUN_KIND_OPTIONS as readonly string[]).includes(kind))
      query.kind = kind as RunListQuery["kind"];
    else ignored.push("kind");
  }
  const status = first(sp.status);
  if (status) {
    if ((RUN_STATE_OPTIONS as readonly string[]).includes(status))
      query.status = status as RunState;
    else ignored.push("status");
  }
  const archived = first(sp.archived);
  if (archived) {
    if (archived === "include" || archived === "only") query.archived = archived;
    else ignored.push("archived");
  }
  const sort = first(sp.sort);
  if (sort) {
    const parsed = parseRunSort(sort);
    if (parsed) query.sort = parsed;
    else ignored.push("sort");
  }
  const dir = first(sp.dir);
  if (dir) {
    if (dir === "asc" || dir === "desc") query.dir = dir;
    else ignored.push("dir");
  }
  const group = first(sp.group);
  if (group) {
    const parsed = parseRunGroupBy(group);
    if (parsed) query.group = parsed;
    else ignored.push("group");
  }
  const cols = first(sp.cols);
  if (cols) {
    const parsed = parseRunColumns(cols);
    if (parsed) query.cols = parsed;
    else ignored.push("cols");
  }
  for (const [name, max] of [
    ["host", 100],
    ["tag", 100],
    ["q", 200],
    ["sweep", 300],
    ["cursor", 1000],
  ] as const) {
    const v = first(sp[name]);
    if (!v) continue;
    if (v.length <= max) query[name] = v;
    else ignored.push(name);
  }
  const pageText = first(sp.page);
  if (pageText) {
    const n = Number(pageText);
    if (Number.isInteger(n) && n >= 1 && n <= 100_000) query.page = n;
    else ignored.push("page");
  }
  return { query, ignored };
}

/** True when any filter (not the cursor) is set. */
export function hasRunFilters(q: RunListQuery): boolean {
  return Boolean(q.kind || q.status || q.host || q.tag || q.q || q.archived || q.sweep);
}

/** `/plans/:id`. */
export function planPath(id: number): string {
  return `/plans/${id}`;
}

/** `/sessions/:id`. */
export function sessionPath(id: number): string {
  return `/sessions/${id}`;
}

/** `/hosts/:name`. */
export function hostPath(name: string): string {
  return `/hosts/${encodeURIComponent(name)}`;
}

/** `/evals?category=&dataset=` (empty filters left out). */
export function evalsPath(filters: { category?: string; dataset?: string } = {}): string {
  return `/evals${query({ category: filters.category, dataset: filters.dataset })}`;
}

/** `/baselines`. */
export const BASELINES_PATH = "/baselines";
