/**
 * Read model of the overview (`/`, `GET /api/overview`): what runs now, what went quiet, host
 * health and recent events: the page a team leaves open all day.
 */
import type { RunState, RunSummary } from "@/lib/view-models";

import type { HostView } from "./hosts";
import type { ProgressFigures } from "./pipeline";

/** Latest value of one metric key of a run. */
export interface LatestMetric {
  key: string;
  step: number | string;
  value: number;
}

/** What an eval run (or any run pushing `run.eval`) has scored so far. */
export interface ActiveEvalView {
  /** Distinct checkpoints scored (by step, else label, else URI). */
  checkpoints: number;
  /** Eval results stored (prompts or prompt groups). */
  results: number;
  /** Highest checkpoint step scored (a decimal string beyond 2^53); null when no result names a step. */
  latestStep: number | string | null;
  /** Time of the latest result. */
  lastScoredAt: string;
}

/** A running or stale run with its progress line. */
export interface ActiveRunView {
  id: number;
  name: string;
  kind: RunSummary["kind"];
  host: string;
  /** `running` or `stale` as of the overview's `asOf` (clients re-derive it as time passes). */
  state: RunState;
  startedAt: string;
  lastPushAt: string;
  stallAfterS: number;
  progress: ProgressFigures;
  workers: number;
  /** Workers with no push within the stall threshold. */
  staleWorkers: number;
  activeAlerts: string[];
  /** Benchmark points so far (benchmark runs). */
  pointCount: number;
  /** Latest finite value of up to three metric keys (losses first), for runs that report metrics. */
  latestMetrics: LatestMetric[];
  /** Checkpoints scored so far (runs with eval results); null without any. */
  evals: ActiveEvalView | null;
}

/** A finished run (succeeded, failed or cancelled). */
export interface FinishedRunView {
  id: number;
  name: string;
  kind: RunSummary["kind"];
  host: string;
  state: RunState;
  startedAt: string;
  endedAt: string;
  durationS: number;
  error: string | null;
  exitCode: number | null;
  /** Run-end reconciliation mismatches (see `RunSummary.countMismatches`). */
  countMismatches: RunSummary["countMismatches"];
}

/** An event with the run it belongs to. */
export interface OverviewEventView {
  id: string;
  ts: string;
  level: string;
  message: string;
  code: string | null;
  runId: number;
  runName: string;
}

/** Counts of the active runs of the overview, whatever page is shown. */
export interface ActiveCounts {
  /** Running + stale (within 24 h): what `active` pages through. */
  total: number;
  running: number;
  stale: number;
  /** Active runs with an active invariant alert. */
  alerting: number;
  /** Runs skipped before this page. */
  offset: number;
  /** Page size asked for (≤ 200). */
  limit: number;
}

/** The overview. */
export interface OverviewView {
  asOf: string;
  /** One page of the running and stale runs whose last push is within the last 24 h: stale first (most recently silent on top), then alerting, then the rest, each by newest start. */
  active: ActiveRunView[];
  /** Counts over every active run (not just the page) and the page shown. */
  activeCounts: ActiveCounts;
  /** Stale runs silent for more than 24 h (listed on /runs?status=stale, not here). */
  olderStaleCount: number;
  /** Latest finished runs (by end time), at most 10. */
  recent: FinishedRunView[];
  hosts: HostView[];
  /** Latest 30 events at info level or above across runs, newest first. */
  events: OverviewEventView[];
  /** True when the database holds no run and no host yet (show the getting-started commands). */
  empty: boolean;
}
