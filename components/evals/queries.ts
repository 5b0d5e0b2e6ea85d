import { ApiError, fetchJson, parseApiJson } from "@/lib/api/client";
import type {
  BaselineListView,
  BaselineView,
  DraftSettings,
  EvalOverviewView,
  RunEvalsView,
} from "@/lib/view-models/evals";

/**
 * react-query keys, fetchers, mutations and paths of evals and baselines. The overview and the
 * baseline list follow lib/query-keys.ts's one rule, so `useLiveTopics(["evals"])` and
 * `useLiveTopics(["baselines"])` keep them live; the overview also draws baselines, so pages
 * invalidate it on `baselines` too (useLiveInvalidate). A run's evals sit outside ["run", id]
 * (the run page refetches that on every push) and are invalidated on `run:<id>` and `baselines`.
 */

/** Filters of the eval overview (URL and API query). */
export interface EvalFilters {
  category?: string;
  dataset?: string;
}

/** Prefix of every overview query (the `evals` topic's key). */
export const allEvalOverviewsQueryKey = ["evals"] as const;
/** Key of the overview for `filters`. */
export const evalOverviewQueryKey = (filters: EvalFilters) =>
  ["evals", { category: filters.category ?? null, dataset: filters.dataset ?? null }] as const;
/** Prefix of a run's eval queries. */
export const runEvalsPrefix = (runId: number) => ["run-evals", runId] as const;
/** Key of a run's evals for one draft-settings choice (null: the default). */
export const runEvalsQueryKey = (runId: number, draft: string | null) =>
  ["run-evals", runId, draft] as const;
/** Key of the baseline list (the `baselines` topic's key). */
export const baselinesQueryKey = ["baselines"] as const;

function query(params: Record<string, string | undefined | null>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) sp.set(k, v);
  const s = sp.toString();
  return s ? `?${s}` : "";
}

/** `/evals?category=&dataset=`. */
export function evalsPath(filters: EvalFilters = {}): string {
  return `/evals${query({ category: filters.category, dataset: filters.dataset })}`;
}

/** `/baselines`. */
export const BASELINES_PATH = "/baselines";

/** τ by checkpoint across runs (`GET /api/evals`). @throws ApiError. */
export function fetchEvalOverview(
  filters: EvalFilters,
  signal?: AbortSignal,
): Promise<EvalOverviewView> {
  return fetchJson<EvalOverviewView>(
    `/api/evals${query({ category: filters.category, dataset: filters.dataset })}`,
    { signal },
  );
}

/** One run's evals (`GET /api/runs/:id/evals`), for one draft-settings key or the default. @throws ApiError (404 unknown run). */
export function fetchRunEvals(
  runId: number,
  draft: string | null,
  signal?: AbortSignal,
): Promise<RunEvalsView> {
  return fetchJson<RunEvalsView>(`/api/runs/${runId}/evals${query({ draft })}`, { signal });
}

/** Every baseline (`GET /api/baselines`). @throws ApiError. */
export function fetchBaselines(signal?: AbortSignal): Promise<BaselineListView> {
  return fetchJson<BaselineListView>("/api/baselines", { signal });
}

/** What the baseline form sends (the `baseline.upsert` frame's fields). */
export interface BaselineBody {
  name: string;
  metric: string;
  value: number;
  tolerance?: number | null;
  dataset?: string | null;
  settings?: DraftSettings;
  sourceUrl?: string | null;
}

async function send<T>(
  method: "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T | null> {
  const res = await fetch(path, {
    method,
    headers: {
      accept: "application/json",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) {
    let code = "http_error";
    let message = `${res.status} ${res.statusText}`;
    try {
      const parsed = parseApiJson<{ error?: { code?: string; message?: string } }>(text);
      code = parsed.error?.code ?? code;
      message = parsed.error?.message ?? message;
    } catch {
      // Not JSON (proxy error page): keep the status line.
    }
    throw new ApiError(res.status, code, message);
  }
  return text ? parseApiJson<T>(text) : null;
}

/** Creates a baseline (`POST /api/baselines`). @throws ApiError: 409 `baseline_exists`, 403 without the approver role, 400 bad body. */
export async function createBaseline(body: BaselineBody): Promise<BaselineView> {
  const { tolerance, dataset, sourceUrl, ...rest } = body;
  // POST takes absent optional fields, never null.
  const payload = {
    ...rest,
    ...(tolerance != null ? { tolerance } : {}),
    ...(dataset ? { dataset } : {}),
    ...(sourceUrl ? { sourceUrl } : {}),
  };
  return (await send<BaselineView>("POST", "/api/baselines", payload))!;
}

/** Changes a baseline (`PATCH /api/baselines/:id`; null clears tolerance, dataset, sourceUrl). @throws ApiError: 409 `baseline_exists`, 404, 403, 400. */
export async function updateBaseline(
  id: number,
  body: Partial<BaselineBody>,
): Promise<BaselineView> {
  return (await send<BaselineView>("PATCH", `/api/baselines/${id}`, body))!;
}

/** Deletes a baseline (`DELETE /api/baselines/:id`). @throws ApiError: 404, 403. */
export async function deleteBaseline(id: number): Promise<void> {
  await send("DELETE", `/api/baselines/${id}`);
}
