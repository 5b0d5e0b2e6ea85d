/**
 * Read models of speculative-decoding evaluations (drafter checkpoints scored by acceptance length
 * τ) and of reference baselines. Plain JSON shapes; timestamps are ISO 8601 strings; checkpoint
 * steps are 64-bit and therefore decimal strings.
 *
 * Every τ here is a ratio of sums computed by lib/metrics/tau.ts from raw counts: tokens produced
 * (accepted draft tokens + one bonus token per verify step) / verify steps, summed over all the
 * results it covers. Never a mean of per-prompt τ (that figure only appears as `meanOfPrompts` of a
 * distribution, labelled as such).
 */
import type { TauDistribution } from "@/lib/metrics/tau";

/** Draft settings values as the protocol carries them (block size, top-k, steps…). */
export type DraftSettings = Record<string, string | number | boolean | null>;

/** Raw counts behind a τ, and the τ itself. */
export interface TauCountsView {
  /** Acceptance length τ: tokensProduced / verifySteps (tokens per verify step). */
  tau: number;
  /** Target forward passes (draft/verify cycles), summed. */
  verifySteps: number;
  /** Accepted draft tokens (no bonus tokens), summed. */
  acceptedTokens: number;
  /** acceptedTokens + verifySteps. */
  tokensProduced: number;
  /** Eval results summed (a result is a prompt or a prompt group). */
  results: number;
}

/** A checkpoint as eval results name it. */
export interface CheckpointRefView {
  /**
   * Stable key: `step:<n>`, else `label:<label>`, else `uri:<uri>` (lib/metrics/tau.ts
   * checkpointKey), or `none` for results that name no checkpoint.
   */
  key: string;
  /** Training step (64-bit, decimal string); null when the results give none. */
  step: string | null;
  label: string | null;
  /** Artifact URI, e.g. s3://drafters/dflash/step-4000. */
  uri: string | null;
  /** Earliest result time of this checkpoint. */
  firstAt: string;
  /** Latest result time of this checkpoint (when it was last scored). */
  lastAt: string;
}

/** τ of one category (null: results without a category) at one checkpoint. */
export interface CategoryTauView extends TauCountsView {
  category: string | null;
  /** Distinct prompt ids. */
  prompts: number;
  /** Unweighted mean of the results' output tok/s (results that report it); null when none do. */
  meanOutputTokPerS: number | null;
}

/** One checkpoint of a run with its τ over all its results (of the selected draft settings). */
export interface RunCheckpointView extends CheckpointRefView, TauCountsView {
  /** Distinct prompt ids. */
  prompts: number;
  meanOutputTokPerS: number | null;
  /** τ per category, sorted by category, no-category last. */
  categories: CategoryTauView[];
  /** Per-prompt τ distribution (each result once, bins 0.5 wide aligned across checkpoints). */
  distribution: TauDistribution | null;
}

/** One set of draft settings seen in a run's results. */
export interface DraftSettingsView {
  /** lib/metrics/tau.ts draftSettingsKey(), or `none` for results without settings. */
  key: string;
  settings: DraftSettings;
  results: number;
  verifySteps: number;
}

/** One row of the eval table: a checkpoint's total over all categories (`total: true`, category null) or one category of it. */
export interface EvalTableRow extends TauCountsView {
  checkpointKey: string;
  /** The checkpoint's step (64-bit, decimal string), label and URI, as in {@link CheckpointRefView}. */
  step: string | null;
  label: string | null;
  uri: string | null;
  /** True for the checkpoint's all-categories row. */
  total: boolean;
  category: string | null;
  prompts: number;
  meanOutputTokPerS: number | null;
}

/** A reference figure drawn as a labelled line (e.g. τ 12.4 of a public drafter with DDTree-8). */
export interface BaselineView {
  id: number;
  name: string;
  /** `tau`, `outputTokPerS`, … */
  metric: string;
  value: number;
  /** ± band around the line, in the metric's unit; null for none. */
  tolerance: number | null;
  dataset: string | null;
  settings: DraftSettings;
  sourceUrl: string | null;
  updatedAt: string;
}

/** All baselines (`GET /api/baselines`), by metric then name. */
export interface BaselineListView {
  asOf: string;
  baselines: BaselineView[];
}

/** A run's evaluations (`GET /api/runs/:id/evals`). */
export interface RunEvalsView {
  runId: number;
  asOf: string;
  /** Eval results stored for the run (all draft settings). */
  resultCount: number;
  /** Draft settings seen, most verify steps first. */
  draftSettings: DraftSettingsView[];
  /**
   * Key of the draft settings the checkpoints below cover: the requested one, else the one with
   * the most verify steps (τ of different draft settings is never summed). Null without results.
   */
  draft: string | null;
  /** Checkpoints ordered by step (nulls last), then label, then first result time. */
  checkpoints: RunCheckpointView[];
  /**
   * Key of the latest checkpoint: the highest step when any checkpoint has a step, else the one
   * scored most recently (`lastAt`); null without checkpoints. Not necessarily the last in order.
   */
  latestKey: string | null;
  /** Table rows: per checkpoint (same order) its total, then each category. */
  rows: EvalTableRow[];
  /** Categories and datasets seen (selected draft settings). */
  categories: string[];
  datasets: string[];
  /** Baselines with metric `tau`. */
  baselines: BaselineView[];
  /** Other runs whose results are included: eval runs that scored checkpoints this run saved. */
  scoredBy: EvalRunRefView[];
}

/** A run as a line of the overview. */
export interface EvalRunRefView {
  id: number;
  name: string;
  kind: "benchmark" | "extraction" | "generation" | "training" | "eval" | "serving";
}

/** One checkpoint on an overview line. */
export interface TauPointView extends CheckpointRefView, TauCountsView {
  /** Runs holding the eval results summed into this point. */
  evalRunIds: number[];
}

/**
 * One line of the overview: the training run that produced the checkpoints (matched by artifact
 * URI), or, when no artifact matches, the run holding the results; and ONE set of draft settings
 * (τ of different draft settings is never summed: a run scored with several has one line each).
 */
export interface TauLineView {
  /** Unique line key: `<run id>`, or `<run id>:<draft key>` when the run has several lines. */
  key: string;
  run: EvalRunRefView;
  /** The draft settings this line covers (key as in {@link DraftSettingsView}). */
  draft: { key: string; settings: DraftSettings };
  /** True when the run's results use several draft settings, so the run has one line per setting (label them). */
  splitByDraft: boolean;
  /** Datasets of the line's results (sorted); used to pick the baselines it is compared with. */
  datasets: string[];
  /** `artifact`: at least one point matched a checkpoint artifact of `run`; `results`: `run` holds the results. */
  attributedBy: "artifact" | "results";
  /** Runs whose eval results feed this line (may include `run` itself). */
  evalRuns: EvalRunRefView[];
  /** Checkpoints ordered by step (nulls last), then label, then first result time. */
  points: TauPointView[];
  /** Key of the line's latest point (rule of {@link RunEvalsView.latestKey}). */
  latestKey: string | null;
  /** τ per category at the line's latest checkpoint (`latestKey`). */
  latestCategories: CategoryTauView[];
}

/** τ by checkpoint across runs (`GET /api/evals?category=&dataset=`). */
export interface EvalOverviewView {
  asOf: string;
  filters: { category: string | null; dataset: string | null };
  /** Every category and dataset in stored results (for the filter menus). */
  categories: string[];
  datasets: string[];
  /**
   * One line per training run and draft settings, runs ordered by their latest result time (newest
   * first), a run's lines by verify steps (most first, as the run page's default).
   */
  lines: TauLineView[];
  /** Baselines with metric `tau` (with a dataset filter: those of that dataset or of none). */
  baselines: BaselineView[];
}
