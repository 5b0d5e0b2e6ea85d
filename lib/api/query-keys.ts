import type { EvalOverviewQuery } from "./evals";
import type { RunListQuery } from "./runs";

/**
 * Every react-query key of the browser's API reads, and the live topics that invalidate them. A
 * `changed` message for a topic invalidates every query whose key starts with
 * {@link queryKeyForTopic}: `runs` → ["runs", …], `run:42` → ["run", 42], `plans`, `plan:3`,
 * `sessions`, `session:7`, `hosts`, `inbox`. A run's progress and metrics are heavier reads: their
 * keys are outside ["run", id] so that the run page refreshes them throttled (useLiveInvalidate
 * with minIntervalMs), not on every push.
 */

/** Key of one page of the run list. */
export const runsQueryKey = (q: RunListQuery) => ["runs", q] as const;

/** Key of one run with its points. */
export const runQueryKey = (id: number) => ["run", id] as const;

/** Key of a run's progress view. */
export const progressQueryKey = (runId: number) => ["run-progress", runId] as const;
/** Key of a run's metric series. */
export const metricsQueryKey = (runId: number) => ["run-metrics", runId] as const;

/** A step range of a zoomed metric chart: integer steps, both ends inclusive. */
export interface StepRange {
  fromStep: number;
  toStep: number;
}

/**
 * Key of a run's metric series in a step range (a zoomed chart), or of the idle query when the
 * chart is not zoomed. Outside `metricsQueryKey`: the live push fills that one with the whole
 * run, never a range.
 */
export const metricsRangeQueryKey = (runId: number, range: StepRange | null) =>
  range
    ? (["run-metrics-range", runId, range.fromStep, range.toStep] as const)
    : (["run-metrics-range", runId, "none"] as const);

/** Key of one page of a run's artifacts (under "run-progress": a progress refresh refreshes it too). */
export const artifactPageQueryKey = (runId: number, offset: number, limit: number) =>
  ["run-progress", runId, "artifacts", offset, limit] as const;

/** Key of the rows each export of a run would hold. */
export const runExportSummaryQueryKey = (runId: number) => ["run-export-summary", runId] as const;

/** Key of the overview (under "runs": every run change refreshes it). */
export const overviewQueryKey = ["runs", "overview"] as const;
/** Key of one page of the overview (a child of overviewQueryKey, so invalidating that refreshes every page). */
export const overviewPageQueryKey = (offset: number) => [...overviewQueryKey, offset] as const;

/** Prefix of every plan list and count. */
export const allPlansQueryKey = ["plans"] as const;
/** Key of a plan list (all plans, or one session's). */
export const plansQueryKey = (session?: number) => ["plans", "list", session ?? null] as const;
/** Key of the plans the overview shows as waiting (the first WAITING_LIMIT plans, pending first). */
export const waitingPlansQueryKey = ["plans", "waiting"] as const;
/** Key of the pending count (the navigation badge). */
export const pendingPlansQueryKey = ["plans", "pending"] as const;
/** Key of the plans about one run (its chart annotations). */
export const runPlansQueryKey = (runId: number) => ["plans", "run", runId] as const;
/** Key of one plan's page. */
export const planQueryKey = (id: number) => ["plan", id] as const;
/** Key of one plan version's line comments (under the plan's key: its live topic refreshes them). */
export const planCommentsQueryKey = (id: number) => ["plan", id, "comments"] as const;
/** Live topic of one plan. */
export const planTopic = (id: number): string => `plan:${id}`;

/** Key of the session list. */
export const sessionsQueryKey = ["sessions", "list"] as const;
/** Key of one session's page. */
export const sessionQueryKey = (id: number) => ["session", id] as const;
/** Live topic of one session. */
export const sessionTopic = (id: number): string => `session:${id}`;

/** Key of the host list; host pages sit under it (["hosts", name]), so invalidating ["hosts"] refreshes both. */
export const hostsQueryKey = ["hosts"] as const;
/** Key of one host's page (its time-range URL parameters as the third part, "" for the last hour). */
export const hostQueryKey = (name: string, rangeSearch = "") =>
  ["hosts", name, rangeSearch] as const;

/** Prefix of every inbox read (the live topic `inbox` invalidates it). */
export const allInboxQueryKey = ["inbox"] as const;
/** Key of the inbox list. */
export const inboxQueryKey = ["inbox", "list"] as const;
/** Key of the inbox audit (decision history). */
export const inboxAuditQueryKey = ["inbox", "audit"] as const;

/** Prefix of every eval overview query (the `evals` topic's key). */
export const allEvalOverviewsQueryKey = ["evals"] as const;
/** Key of the eval overview for `filters`. */
export const evalOverviewQueryKey = (filters: EvalOverviewQuery) =>
  ["evals", { category: filters.category ?? null, dataset: filters.dataset ?? null }] as const;
/**
 * Prefix of a run's eval queries: outside ["run", id] (the run page refetches that on every
 * push); pages invalidate it on `run:<id>` and `baselines`.
 */
export const runEvalsPrefix = (runId: number) => ["run-evals", runId] as const;
/** Key of a run's evals for one draft-settings choice (null: the default). */
export const runEvalsQueryKey = (runId: number, draft: string | null) =>
  ["run-evals", runId, draft] as const;
/** Key of the baseline list (the `baselines` topic's key). */
export const baselinesQueryKey = ["baselines"] as const;

/**
 * Live topics that can change a checkpoint's lineage: any run (artifacts, configs, states) and
 * any eval. The checkpoint keys sit outside the prefixes those topics invalidate by themselves:
 * the pages refresh them throttled with useLiveInvalidate.
 */
export const CHECKPOINT_TOPICS = ["runs", "evals"] as const;
/** Key of the checkpoint list. */
export const checkpointsQueryKey = (limit: number) => ["checkpoints", limit] as const;
/** Key of one checkpoint's lineage. */
export const checkpointLineageQueryKey = (uri: string) => ["checkpoint-lineage", uri] as const;

/**
 * Key of a host's serving panel. The serving keys sit outside ["run", id] and ["hosts", name], so
 * pages refresh them throttled on the `runs` topic (every serving push touches a run).
 */
export const hostServingQueryKey = (name: string, rangeSearch = "") =>
  ["serving", "host", name, rangeSearch] as const;
/** Key of a run's server telemetry (`rangeSearch`: the page's time range parameters, "" for the default window). */
export const runServingQueryKey = (runId: number, rangeSearch = "") =>
  ["serving", "run", runId, rangeSearch] as const;

/** Key of the inbox's allow/deny rules. */
export const inboxRulesQueryKey = ["inbox-rules"] as const;
/** Key of the alert rules' names (id → name, for alert titles). */
export const alertRuleNamesQueryKey = ["alerts", "rule-names"] as const;

/** Key of the signed-in person's saved views of a page. */
export const savedViewsQueryKey = (page: string) => ["saved-views", page] as const;

/** Key of the results of one search. */
export const searchQueryKey = (q: string) => ["search", q] as const;

/**
 * Key prefix a live topic invalidates, by one rule for every topic: `name` → [name],
 * `name:42` → [name, 42] (`runs`, `run:42`, `hosts`, `sessions`, `session:7`, `plans`, `plan:3`,
 * `events`); null for topics that are not of that shape.
 */
export function queryKeyForTopic(topic: string): readonly unknown[] | null {
  const m = /^([a-z][a-z-]*)(?::(\d+))?$/.exec(topic);
  if (!m) return null;
  return m[2] === undefined ? [m[1]] : [m[1], Number(m[2])];
}
