/**
 * Run-end reconciliation: at the end of a run, counts that should agree (items done vs objects
 * uploaded vs local files deleted, or any pair the worker declares) are compared, so a run that
 * "succeeded" with 69 samples never uploaded shows a warning instead of a green Succeeded. Pure:
 * the inputs are run totals (see `aggregateWorkers` in ./progress).
 */

import { formatCount } from "../format";

/** Pseudo counter names a pair may use besides the run's counters: the run's `done` and `total`. */
export const RECONCILE_DONE = "done";
export const RECONCILE_TOTAL = "total";

/**
 * Pairs checked when the run's config declares none (`[expected, actual]`): every item done is
 * uploaded, and every uploaded file is deleted locally. A pair is skipped while either count is
 * unknown, so a run without S3 counters is never flagged.
 */
export const DEFAULT_RECONCILE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  [RECONCILE_DONE, "s3.uploaded"],
  ["s3.uploaded", "local.deleted"],
];

/** Two counts that should be equal at run end and are not. */
export interface CountMismatch {
  /** Name of the reference count (`done`, `total` or a counter such as `s3.uploaded`). */
  expected: string;
  /** Name of the count that should equal it. */
  actual: string;
  expectedCount: number;
  actualCount: number;
  /** expectedCount − actualCount: positive when `actual` falls short. */
  gap: number;
  /** "913,931 uploaded of 914,000 done: 69 never uploaded". */
  message: string;
}

/** How a count reads in a message: the word after the number, and what a shortfall means. */
const WORDS: Record<string, { word: string; short: string }> = {
  [RECONCILE_DONE]: { word: "done", short: "not done" },
  [RECONCILE_TOTAL]: { word: "expected", short: "missing" },
  "s3.uploaded": { word: "uploaded", short: "never uploaded" },
  "local.deleted": { word: "deleted locally", short: "left on local disk" },
};

function words(name: string): { word: string; short: string } {
  return WORDS[name] ?? { word: name, short: `short in ${name}` };
}

/**
 * The pairs a run's config declares under `reconcile`: an array of `[expected, actual]` name
 * pairs (counter names, or `done` / `total`). `[]` turns reconciliation off. Null when the config
 * declares nothing usable (absent, or not an array of string pairs): use the defaults.
 */
export function declaredPairs(config: Record<string, unknown>): Array<[string, string]> | null {
  const v = config.reconcile;
  if (!Array.isArray(v)) return null;
  const pairs: Array<[string, string]> = [];
  for (const p of v) {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== "string" || typeof p[1] !== "string")
      return null;
    pairs.push([p[0], p[1]]);
  }
  return pairs;
}

/**
 * Mismatches among a run's end counts: for each pair (the config's `reconcile`, else
 * {@link DEFAULT_RECONCILE_PAIRS}) whose two counts are both known and finite and differ.
 * `done`/`total` are the run's aggregated progress; other names are run counter totals.
 */
export function reconcileCounts(input: {
  done: number | null;
  total: number | null;
  counters: Record<string, number>;
  config: Record<string, unknown>;
}): CountMismatch[] {
  const value = (name: string): number | null => {
    const v =
      name === RECONCILE_DONE
        ? input.done
        : name === RECONCILE_TOTAL
          ? input.total
          : input.counters[name];
    return v === null || v === undefined || !Number.isFinite(v) ? null : v;
  };
  const out: CountMismatch[] = [];
  for (const [expected, actual] of declaredPairs(input.config) ?? DEFAULT_RECONCILE_PAIRS) {
    const e = value(expected);
    const a = value(actual);
    if (e === null || a === null || e === a) continue;
    const gap = e - a;
    const tail =
      gap > 0
        ? `${formatCount(gap)} ${words(actual).short}`
        : `${formatCount(-gap)} more than ${words(expected).word}`;
    out.push({
      expected,
      actual,
      expectedCount: e,
      actualCount: a,
      gap,
      message: `${formatCount(a)} ${words(actual).word} of ${formatCount(e)} ${words(expected).word}: ${tail}`,
    });
  }
  return out;
}
