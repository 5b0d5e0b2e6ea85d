/**
 * Acceptance length τ of speculative decoding, from raw counts.
 *
 * One definition everywhere (the protocol's `evalResult`): τ = tokens produced per verify step =
 * (accepted draft tokens + one bonus token per step) / verify steps. A drafter that never gets a
 * token accepted has τ = 1 (the target model's own token each step); a DFlash block of 16 that is
 * always fully accepted has τ = 17. This is what SGLang prints as "accept len" and vLLM reports as
 * acceptance length (1 + accepted / drafts).
 *
 * Aggregates are ratios of sums, never means of ratios: a run's τ is Σ tokens produced / Σ verify
 * steps over all its prompts, so a long prompt weighs by its steps. The mean of per-prompt τ values
 * (what a naive dashboard shows) over-weights short prompts and is only reported, labelled as such,
 * by {@link perPromptTau}. Nothing here ever takes "the last value".
 *
 * Counts vs reported figures: a producer that only gives a mean accept length without the verify
 * count it was computed over (SGLang's log line, the `sglang:spec_accept_length` gauge, a SpecForge
 * result whose counts cannot be recovered) does NOT become counts here. Such a figure is stored as a
 * metric point under {@link reportedTauMetricKey} (`tau/<dataset>`), shown as "reported τ", and never
 * summed with measured counts: turning it into counts would need a guessed step count (e.g. one step
 * per question), and the UI must never present a guessed count as measured.
 *
 * Pure functions, no I/O.
 */

/** Raw counts of one measurement (a prompt, a prompt group, a whole run). */
export interface TauCounts {
  /** Verify steps: target forward passes per sequence (draft/verify cycles); > 0. */
  verifySteps: number;
  /** Accepted draft tokens over those steps, NOT counting the bonus token of each step; ≥ 0. */
  acceptedTokens: number;
}

/** Counts summed over several measurements, with their τ. */
export interface TauAggregate {
  /** Σ tokens produced / Σ verify steps. */
  tau: number;
  verifySteps: number;
  acceptedTokens: number;
  /** acceptedTokens + verifySteps (one bonus token per step). */
  tokensProduced: number;
  /** How many measurements were summed. */
  results: number;
}

/** One group of {@link groupTau}: its key (null for "no key") and aggregate. */
export interface GroupTau extends TauAggregate {
  key: string | null;
}

function checkCounts(c: TauCounts): void {
  if (!Number.isFinite(c.verifySteps) || c.verifySteps <= 0)
    throw new RangeError(`verifySteps must be a finite number > 0, got ${c.verifySteps}`);
  if (!Number.isFinite(c.acceptedTokens) || c.acceptedTokens < 0)
    throw new RangeError(`acceptedTokens must be a finite number ≥ 0, got ${c.acceptedTokens}`);
}

/** Tokens produced by the counts: accepted draft tokens + one bonus token per verify step. @throws RangeError for invalid counts. */
export function tokensProduced(c: TauCounts): number {
  checkCounts(c);
  return c.acceptedTokens + c.verifySteps;
}

/**
 * τ of one measurement: (acceptedTokens + verifySteps) / verifySteps, ≥ 1.
 * @throws RangeError when verifySteps is not a finite number > 0 or acceptedTokens not a finite number ≥ 0.
 */
export function tauOf(c: TauCounts): number {
  return tokensProduced(c) / c.verifySteps;
}

/**
 * Sums counts over `results` and returns τ = Σ tokens produced / Σ verify steps, or null when
 * `results` is empty. @throws RangeError when any result has invalid counts.
 */
export function aggregateTau(results: readonly TauCounts[]): TauAggregate | null {
  if (results.length === 0) return null;
  let verifySteps = 0;
  let acceptedTokens = 0;
  for (const r of results) {
    checkCounts(r);
    verifySteps += r.verifySteps;
    acceptedTokens += r.acceptedTokens;
  }
  const produced = acceptedTokens + verifySteps;
  return {
    tau: produced / verifySteps,
    verifySteps,
    acceptedTokens,
    tokensProduced: produced,
    results: results.length,
  };
}

/**
 * τ of a checkpoint: Σ tokens produced / Σ verify steps over all its results (pass the results of
 * ONE checkpoint and one set of draft settings; see {@link groupTau} to split). Never the last
 * result's τ, never the mean of per-prompt τ. Null when there are no results.
 * @throws RangeError when any result has invalid counts.
 */
export function checkpointTau(results: readonly TauCounts[]): number | null {
  return aggregateTau(results)?.tau ?? null;
}

/**
 * Aggregates per group: `keyOf` names each result's group (null = no group). Groups come back
 * sorted by key (plain code-unit order, so the same on every host), the null group last.
 * @throws RangeError when any result has invalid counts.
 */
export function groupTau<T extends TauCounts>(
  results: readonly T[],
  keyOf: (result: T) => string | null | undefined,
): GroupTau[] {
  const groups = new Map<string | null, T[]>();
  for (const r of results) {
    const k = keyOf(r) ?? null;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const out: GroupTau[] = [];
  for (const [key, members] of groups)
    out.push({ key, ...(aggregateTau(members) as TauAggregate) });
  return out.sort((a, b) =>
    a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1,
  );
}

/**
 * τ per prompt category (Σ tokens / Σ steps within each category), sorted by category, results
 * without a category last (key null). @throws RangeError when any result has invalid counts.
 */
export function tauByCategory<T extends TauCounts & { category?: string | null }>(
  results: readonly T[],
): GroupTau[] {
  return groupTau(results, (r) => r.category ?? null);
}

/** A checkpoint as an eval result names it (the protocol's `evalResult.checkpoint`). */
export interface CheckpointRef {
  step?: number | string;
  label?: string;
  uri?: string;
}

/**
 * Stable text key of a checkpoint: `step:<n>` when it has a step, else `label:<label>`, else
 * `uri:<uri>`, else null (an unnamed checkpoint).
 */
export function checkpointKey(c: CheckpointRef): string | null {
  if (c.step !== undefined) return `step:${String(c.step)}`;
  if (c.label !== undefined) return `label:${c.label}`;
  if (c.uri !== undefined) return `uri:${c.uri}`;
  return null;
}

/**
 * Stable text key of draft settings (block size, top-k, steps…): the entries sorted by name as
 * JSON, so `{topk: 1, steps: 3}` and `{steps: 3, topk: 1}` group together. Null for no settings.
 */
export function draftSettingsKey(
  draft: Readonly<Record<string, string | number | boolean | null>> | undefined,
): string | null {
  if (!draft) return null;
  const entries = Object.entries(draft).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? null : JSON.stringify(entries);
}

/** One histogram bin of per-prompt τ: [lo, hi), the last bin also includes its `hi`. */
export interface TauBin {
  lo: number;
  hi: number;
  count: number;
}

/**
 * Distribution of per-prompt τ (each result counts once, whatever its length).
 * `meanOfPrompts` is the unweighted mean of per-prompt τ: NOT the run's τ (see {@link checkpointTau}).
 */
export interface TauDistribution {
  count: number;
  min: number;
  max: number;
  meanOfPrompts: number;
  p10: number;
  p50: number;
  p90: number;
  binWidth: number;
  bins: TauBin[];
}

/** Default histogram bin width for per-prompt τ, in tokens per step. */
export const DEFAULT_TAU_BIN_WIDTH = 0.5;
/** Most bins {@link perPromptTau} will make (a tiny bin width over a wide range is an error). */
export const MAX_TAU_BINS = 1000;

/**
 * The q-quantile (0 ≤ q ≤ 1) of ascending `sorted` values by linear interpolation between the
 * closest ranks (numpy's default, "type 7"): position q·(n−1). @throws RangeError for an empty
 * array or q outside [0, 1].
 */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of no values");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be in [0, 1], got ${q}`);
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return lo === hi ? a : a + (b - a) * (pos - lo);
}

/** Rounds away float noise from bin edges (0.1 × 3 → 0.3). */
function edge(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/**
 * Per-prompt τ distribution: quantiles p10/p50/p90 ({@link quantileSorted}), min, max, the
 * unweighted mean, and a histogram with bins of `binWidth` (default 0.5) aligned to multiples of
 * the width (so two checkpoints' histograms share edges). Null when there are no results.
 * @throws RangeError for invalid counts, a bin width that is not > 0, or more than 1000 bins.
 */
export function perPromptTau(
  results: readonly TauCounts[],
  opts: { binWidth?: number } = {},
): TauDistribution | null {
  const binWidth = opts.binWidth ?? DEFAULT_TAU_BIN_WIDTH;
  if (!Number.isFinite(binWidth) || binWidth <= 0)
    throw new RangeError(`binWidth must be a finite number > 0, got ${binWidth}`);
  if (results.length === 0) return null;
  const values = results.map(tauOf).sort((a, b) => a - b);
  const min = values[0] as number;
  const max = values[values.length - 1] as number;
  const lo = Math.floor(min / binWidth) * binWidth;
  const n = Math.floor((max - lo) / binWidth + 1e-9) + 1;
  if (n > MAX_TAU_BINS)
    throw new RangeError(
      `binWidth ${binWidth} makes ${n} bins over τ ${min}..${max} (at most ${MAX_TAU_BINS})`,
    );
  const bins: TauBin[] = Array.from({ length: n }, (_, i) => ({
    lo: edge(lo + i * binWidth),
    hi: edge(lo + (i + 1) * binWidth),
    count: 0,
  }));
  let sum = 0;
  for (const v of values) {
    sum += v;
    const i = Math.min(n - 1, Math.max(0, Math.floor((v - lo) / binWidth + 1e-9)));
    (bins[i] as TauBin).count++;
  }
  return {
    count: values.length,
    min,
    max,
    meanOfPrompts: sum / values.length,
    p10: quantileSorted(values, 0.1),
    p50: quantileSorted(values, 0.5),
    p90: quantileSorted(values, 0.9),
    binWidth,
    bins,
  };
}

/** Snaps float noise of a product of counts to the integer it stands for (2109.0000000000002 → 2109). */
function snapCount(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - r) <= 1e-9 * Math.max(1, Math.abs(x)) ? r : x;
}

/**
 * Counts from an accept length as SGLang and SpecForge report it (tokens per verify step
 * INCLUDING the bonus token) when the verify count it was measured over is known:
 * acceptedTokens = (acceptLength − 1) × verifySteps (float noise snapped to the integer).
 * Only for a figure whose step count is MEASURED (SpecForge's recovered `spec_verify_ct` sum, a
 * worker's own counters); a mean without counts is stored as a reported metric instead (see the
 * module comment).
 * @throws RangeError when acceptLength is not a finite number ≥ 1 (SGLang/SpecForge use 1.0, 0 and
 *   −1 for "no speculative decoding") or verifySteps not a finite number > 0.
 */
export function fromAcceptLength(acceptLength: number, verifySteps: number): TauCounts {
  if (!Number.isFinite(acceptLength) || acceptLength < 1)
    throw new RangeError(
      `acceptLength must be a finite number ≥ 1 (tokens per step incl. bonus), got ${acceptLength}`,
    );
  if (!Number.isFinite(verifySteps) || verifySteps <= 0)
    throw new RangeError(`verifySteps must be a finite number > 0, got ${verifySteps}`);
  return { verifySteps, acceptedTokens: snapCount((acceptLength - 1) * verifySteps) };
}

/**
 * Counts from vLLM's spec-decode counters (`vllm:spec_decode_num_drafts_total`,
 * `vllm:spec_decode_num_accepted_tokens_total`, or their deltas over a window): one draft is one
 * verify step of one sequence, and accepted tokens exclude the bonus token, so
 * verifySteps = numDrafts and acceptedTokens = numAcceptedTokens (τ = 1 + accepted / drafts, vLLM's
 * own acceptance length). Sum the counters over engines (DP) first.
 * @throws RangeError when numDrafts is not a finite number > 0 or numAcceptedTokens not ≥ 0.
 */
export function fromVllmCounters(c: { numDrafts: number; numAcceptedTokens: number }): TauCounts {
  const counts = { verifySteps: c.numDrafts, acceptedTokens: c.numAcceptedTokens };
  checkCounts(counts);
  return counts;
}

/**
 * Counts from SGLang's per-request `meta_info` (`/generate` responses): verifySteps =
 * `spec_verify_ct`, acceptedTokens = `completion_tokens` − `spec_verify_ct`, so τ =
 * completion_tokens / spec_verify_ct, SpecForge's accept length. Note: completion_tokens includes
 * the first token, which the prefill produced without a verify step, so this τ is higher than the
 * decode-only τ by 1 / spec_verify_ct per request (~0.5 % at 200 steps); it is kept so that τ
 * matches what SGLang and SpecForge report.
 * @throws RangeError when specVerifyCt is not > 0 or completionTokens < specVerifyCt.
 */
export function fromSpecVerifyCount(c: {
  completionTokens: number;
  specVerifyCt: number;
}): TauCounts {
  if (!(c.completionTokens >= c.specVerifyCt))
    throw new RangeError(
      `completion_tokens (${c.completionTokens}) must be ≥ spec_verify_ct (${c.specVerifyCt})`,
    );
  const counts = {
    verifySteps: c.specVerifyCt,
    acceptedTokens: c.completionTokens - c.specVerifyCt,
  };
  checkCounts(counts);
  return counts;
}

/** Prefix of metric keys that hold a producer-REPORTED τ (a mean without counts), e.g. `tau/gsm8k`. */
export const REPORTED_TAU_METRIC_PREFIX = "tau/";

/**
 * Metric key for a reported τ of `dataset` (`tau/<dataset>`; `tau/all` when the figure covers no
 * particular dataset). These points are figures as the producer printed them, never counts.
 */
export function reportedTauMetricKey(dataset: string | null | undefined): string {
  return `${REPORTED_TAU_METRIC_PREFIX}${dataset && dataset.length > 0 ? dataset : "all"}`;
}
