/**
 * Read models shared by server components, API responses and client components. Plain JSON
 * shapes (dates as ISO 8601 strings); no database types, so client code may import them.
 * Units live in field names: `durationS` seconds, `ttftMsMedian` milliseconds, `outputTokPerS`
 * output tokens per second (aggregate over all requests).
 */

import type { CountMismatch } from "@/lib/metrics/reconcile";

/** Stored status plus the derived `stale` (running, but no push within its stall threshold). */
export type RunState = "running" | "succeeded" | "failed" | "cancelled" | "ended" | "stale";

/** One row of the run list. */
export interface RunSummary {
  id: number;
  key: string;
  name: string;
  kind: "benchmark" | "extraction" | "generation" | "training" | "eval" | "serving";
  status: "running" | "succeeded" | "failed" | "cancelled" | "ended";
  state: RunState;
  host: string;
  startedAt: string;
  endedAt: string | null;
  lastPushAt: string;
  /** Seconds from start to end (or to now while running). */
  durationS: number;
  tags: string[];
  /** When an approver archived the run (hidden from lists by default); null when not archived. */
  archivedAt: string | null;
  config: Record<string, unknown>;
  model: string | null;
  engine: string | null;
  engineVersion: string | null;
  /** Highest finite aggregate output tok/s among successful points (long-context ones only when the run has no others); null without points. */
  peakOutputTokPerS: number | null;
  pointCount: number;
  /**
   * Run-end reconciliation (lib/metrics/reconcile.ts): counts that should agree and do not (done
   * vs uploaded vs deleted, or the pairs the config's `reconcile` declares). Only for succeeded
   * runs; non-empty means the success is shown as a warning ("Counts differ"), not green.
   */
  countMismatches: CountMismatch[];
  /** Key of the repeated-run group the run belongs to (lib/run-list.ts `runGroupKey`). */
  groupKey: string;
  /**
   * Latest finite value of each metric key the list asked for (`metrics=`), by key; a key the run
   * has no finite point of is absent. Absent when the list asked for none.
   */
  metrics?: Record<string, number>;
}

/**
 * Repeated runs of one sweep in the run list, over every run matching the list's filters (not
 * only the page): how many, the best peak output tok/s (benchmarks) and the newest run.
 */
export interface RunGroupSummary {
  key: string;
  /** The sweep id, or the shared run name. */
  label: string;
  count: number;
  hostCount: number;
  /** Highest peak output tok/s among the group's runs; null without benchmark points. */
  bestPeakOutputTokPerS: number | null;
  bestRunId: number | null;
  latestRunId: number;
  latestStartedAt: string;
  latestState: RunState;
}

/** A page of runs; pass `nextCursor` back as `cursor` for the next page (null: last page). */
export interface RunListPage {
  runs: RunSummary[];
  /** Groups with two or more matching runs that have runs on this page (empty with `group=off` or a `sweep` filter). */
  groups: RunGroupSummary[];
  nextCursor: string | null;
  /** Runs matching the filters, over all pages (counted with the same filters, stale/running split on the server's clock). */
  total: number;
  /** This page's number (1-based) when read by page, null when read by cursor. */
  page: number | null;
  /** Archived runs left out of this list (all of them, whatever the other filters); 0 when they are shown. */
  archivedHidden: number;
  /** Metric keys the page's runs have (at most 60, most common first): what the list offers as metric columns. */
  metricKeys: string[];
}

/** A person's named view of a list page (`GET /api/views`): `query` is the page's query string without "?". */
export interface SavedViewView {
  id: number;
  page: string;
  name: string;
  query: string;
  updatedAt: string;
}

/** One benchmark point. Latencies in ms; null = not measured. Non-finite values stay numbers. */
export interface BenchmarkPointView {
  key: string;
  ord: number;
  scenario: string;
  dataset: string | null;
  /** Configured concurrency level (max_concurrency); null when unbounded. */
  concurrency: number | null;
  /** Mean requests actually in flight (SGLang `concurrency`). */
  measuredConcurrency: number | null;
  /** Offered request rate in req/s; null when unbounded (see requestRateUnbounded). */
  requestRate: number | null;
  requestRateUnbounded: boolean;
  inputLen: number | null;
  outputLen: number | null;
  completed: number | null;
  failed: number | null;
  durationS: number | null;
  requestThroughput: number | null;
  outputTokPerS: number | null;
  totalTokPerS: number | null;
  ttftMsMean: number | null;
  ttftMsMedian: number | null;
  ttftMsP99: number | null;
  tpotMsMean: number | null;
  tpotMsMedian: number | null;
  tpotMsP99: number | null;
  itlMsMean: number | null;
  itlMsMedian: number | null;
  itlMsP99: number | null;
  e2eMsMean: number | null;
  e2eMsMedian: number | null;
  e2eMsP99: number | null;
  /** Acceptance length τ (tokens per verify step) with speculative decoding; else null. */
  acceptLength: number | null;
  raw: Record<string, unknown>;
  updatedAt: string;
}

/** A run with everything its page shows. */
export interface RunDetail extends RunSummary {
  notes: string | null;
  error: string | null;
  /** Last edit of name, tags or notes by a person, and who (email) made it. */
  editedAt: string | null;
  editedBy: string | null;
  /** Who (email) archived the run; null when not archived. */
  archivedBy: string | null;
  benchmarkPoints: BenchmarkPointView[];
}
