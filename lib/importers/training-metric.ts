// Its own module (re-exported by training-common.ts) so training-repeats.ts can use it without
// importing training-common.ts, which imports training-repeats.ts.

/** One metric value from a log: `key` as the tool spells it, `step` the global step, `value` (NaN/±Infinity kept). */
export interface TrainingMetric {
  key: string;
  step: number;
  value: number;
}
