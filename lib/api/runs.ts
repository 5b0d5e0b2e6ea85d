import { z } from "zod";

import { RUN_KINDS, step64 } from "@/lib/protocol";
import {
  DEFAULT_RUN_SORT,
  parseRunGroupBy,
  parseRunGroupKey,
  parseRunSort,
  type RunGroupBy,
  type RunSort,
} from "@/lib/run-list";
import { LISTABLE_METRIC_KEY, MAX_METRIC_COLUMNS, type RunColumns } from "@/lib/run-list-columns";
import { timeRangeParams } from "@/lib/time-range";
import type { RunDetail, RunListPage } from "@/lib/view-models";
import type { RunEvalsView } from "@/lib/view-models/evals";
import type { RunExportSummary } from "@/lib/view-models/export";
import type { RunMetricsView } from "@/lib/view-models/metrics";
import type { ArtifactView, RunProgressView } from "@/lib/view-models/pipeline";
import type { RunServingView } from "@/lib/view-models/serving";

import { defineRoute, idParams } from "./contract";

/** Contracts of the run routes (`/api/runs…`); docs/api.md describes each. */

/** Path parameters of `/api/runs/:id/…`: the run's id (400 "run id must be a positive integer"). */
export const runIdParams = idParams("run");

/** Query filters and order of `GET /api/runs` and the /runs page (all optional). */
export const runListQuery = z.object({
  kind: z.enum(RUN_KINDS).optional(),
  /** Host name: any host whose name contains it (case-insensitive), unless `hostMatch` is `exact`. */
  host: z.string().max(100).optional(),
  hostMatch: z.enum(["partial", "exact"]).default("partial"),
  status: z.enum(["running", "succeeded", "failed", "cancelled", "ended", "stale"]).optional(),
  tag: z.string().max(100).optional(),
  q: z.string().max(200).optional(),
  /** Archived runs are left out unless `include` (all runs) or `only` (archived runs only). */
  archived: z.enum(["exclude", "include", "only"]).default("exclude"),
  /** Only the runs of one repeated-run group (lib/run-list.ts `runGroupKey`). */
  sweep: z
    .string()
    .max(300)
    .refine(
      (k) => parseRunGroupKey(k) !== null,
      "sweep must be a group key: sweep:<id>, name:<kind>:<name>, host:<host>, model:<model> or config:<path>=<value>",
    )
    .optional(),
  /** A built-in column, `config.<path>` or `metric.<key>` (lib/run-list.ts; keyed sorts page by `page`, not `cursor`). */
  sort: z
    .string()
    .max(210)
    .refine(
      (s) => parseRunSort(s) !== null,
      "sort must be startedAt, name, kind, status, host, duration, peak, config.<path> or metric.<key>",
    )
    .transform((s) => s as RunSort)
    .default(DEFAULT_RUN_SORT),
  /** Default: the column's own (lib/run-list.ts `defaultSortDir`). */
  dir: z.enum(["asc", "desc"]).optional(),
  /** `off`: no group summaries (every run stands alone); `host`, `model`, `config.<path>`: group by those; absent: repeated runs. */
  group: z
    .string()
    .max(110)
    .refine((g) => parseRunGroupBy(g) !== null, "group must be host, model, off or config.<path>")
    .transform((g) => g as RunGroupBy)
    .optional(),
  /** Metric keys (comma-separated, at most 8) whose latest finite value each listed run carries in `metrics`. */
  metrics: z
    .string()
    .max(2000)
    .transform((t) => [...new Set(t.split(",").filter((k) => k.length > 0))])
    .refine(
      (keys) => keys.length <= MAX_METRIC_COLUMNS && keys.every((k) => LISTABLE_METRIC_KEY.test(k)),
      `metrics must be at most ${MAX_METRIC_COLUMNS} comma-separated metric keys`,
    )
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(1000).optional(),
  /** 1-based page number (offset pagination; ignored with a cursor). */
  page: z.coerce.number().int().min(1).max(100_000).optional(),
});
/** Parsed {@link runListQuery}: the filters the repositories take. */
export type RunListFilters = z.infer<typeof runListQuery>;

/**
 * The run-list query the browser builds (`/runs?…` and `/api/runs?…`, lib/paths.ts): the
 * contract's filters a person can set, plus the display-only `cols` the API ignores.
 */
export type RunListQuery = Partial<
  Pick<
    RunListFilters,
    | "kind"
    | "status"
    | "host"
    | "tag"
    | "q"
    | "sweep"
    | "sort"
    | "dir"
    | "group"
    | "cursor"
    | "page"
  >
> & {
  /** Archived runs: left out by default; `include` shows all runs, `only` the archived ones. */
  archived?: "include" | "only";
  /** Chosen table columns (lib/run-list-columns.ts); absent = the default columns. */
  cols?: RunColumns;
};

/** `GET /api/runs` → one page of runs. */
export const listRunsRoute = defineRoute({ route: "GET /api/runs", query: runListQuery });
/** Answer of {@link listRunsRoute}. */
export type ListRunsResponse = RunListPage;

/** `GET /api/runs/:id` → the run with its benchmark points. */
export const getRunRoute = defineRoute({ route: "GET /api/runs/:id", params: runIdParams });
/** Answer of {@link getRunRoute} and {@link patchRunRoute}. */
export type RunResponse = RunDetail;

/** Body of `PATCH /api/runs/:id`: any subset of the fields a person may change. */
export const runPatch = z
  .strictObject({
    name: z.string().trim().min(1).max(500).optional(),
    /** Replaces the tag list ([] clears it); tags are trimmed, duplicates removed; a blank tag is an error. */
    tags: z.array(z.string().trim().min(1, "tags cannot be blank").max(100)).max(50).optional(),
    /** Free text; null or "" clears the notes. */
    notes: z.string().max(20_000).nullable().optional(),
    /** true archives the run (hidden from lists, the overview and notifications); false restores it. */
    archived: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, "send at least one of name, tags, notes, archived");
/** Parsed {@link runPatch}. */
export type RunPatch = z.infer<typeof runPatch>;

/** `PATCH /api/runs/:id` (approvers) → the updated run. */
export const patchRunRoute = defineRoute({
  route: "PATCH /api/runs/:id",
  params: runIdParams,
  body: runPatch,
});

/** Query of `GET /api/runs/:id/metrics`; `maxPoints` absent: the metric store's default (1000). */
export const runMetricsQuery = z
  .object({
    maxPoints: z.coerce.number().int().min(10).max(20_000).optional(),
    key: z.array(z.string().min(1).max(200)).max(100).optional(),
    fromStep: step64.optional(),
    toStep: step64.optional(),
  })
  .refine(
    (q) =>
      q.fromStep === undefined || q.toStep === undefined || BigInt(q.fromStep) <= BigInt(q.toStep),
    { message: "fromStep must not be above toStep", path: ["fromStep"] },
  );

/** `GET /api/runs/:id/metrics?maxPoints&key&fromStep&toStep` → the run's metric series. */
export const runMetricsRoute = defineRoute({
  route: "GET /api/runs/:id/metrics",
  params: runIdParams,
  query: runMetricsQuery,
  queryArrays: ["key"],
});
/** Answer of {@link runMetricsRoute}. */
export type RunMetricsResponse = RunMetricsView;

/** `GET /api/runs/:id/progress` → the run's pipeline progress. */
export const runProgressRoute = defineRoute({
  route: "GET /api/runs/:id/progress",
  params: runIdParams,
});
/** Answer of {@link runProgressRoute}. */
export type RunProgressResponse = RunProgressView;

/** Largest page of `GET /api/runs/:id/artifacts`. */
export const ARTIFACT_PAGE_MAX = 200;

/** `GET /api/runs/:id/artifacts?offset&limit` → a page of the run's artifacts (unknown parameters: 400). */
export const runArtifactsRoute = defineRoute({
  route: "GET /api/runs/:id/artifacts",
  params: runIdParams,
  query: z.strictObject({
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    limit: z.coerce.number().int().min(1).max(ARTIFACT_PAGE_MAX).default(ARTIFACT_PAGE_MAX),
  }),
});
/** Answer of {@link runArtifactsRoute}. */
export interface RunArtifactsResponse {
  artifacts: ArtifactView[];
  total: number;
}

/** Query of `GET /api/runs/:id/evals`: the draft settings key (absent: the most measured). */
export const runEvalsQuery = z.object({ draft: z.string().min(1).max(10_000).optional() });
/** Parsed {@link runEvalsQuery}. */
export type RunEvalsQuery = z.infer<typeof runEvalsQuery>;

/** `GET /api/runs/:id/evals?draft` → the run's evaluations. */
export const runEvalsRoute = defineRoute({
  route: "GET /api/runs/:id/evals",
  params: runIdParams,
  query: runEvalsQuery,
});
/** Answer of {@link runEvalsRoute}. */
export type RunEvalsResponse = RunEvalsView;

/**
 * `GET /api/runs/:id/export?data&format` → a download. `data`/`format` are read by
 * lib/api/exports.ts `parseExportQuery` (their own 400 codes).
 */
export const runExportRoute = defineRoute({
  route: "GET /api/runs/:id/export",
  params: runIdParams,
});

/** `GET /api/runs/:id/export/summary` → the rows each export would hold. */
export const runExportSummaryRoute = defineRoute({
  route: "GET /api/runs/:id/export/summary",
  params: runIdParams,
});
/** Answer of {@link runExportSummaryRoute}. */
export type RunExportSummaryResponse = RunExportSummary;

/** `GET /api/runs/:id/serving?range | from&to` → server telemetry during the run. */
export const runServingRoute = defineRoute({
  route: "GET /api/runs/:id/serving",
  params: runIdParams,
  query: timeRangeParams,
});
/** Answer of {@link runServingRoute}. */
export type RunServingResponse = RunServingView;
