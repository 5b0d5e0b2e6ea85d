import { stringifyJson } from "../protocol/json";
import type { TrainingMetric } from "./training-metric";

/**
 * Steps a training log holds more than once. Two writers appending to one log (LLaMA-Factory's
 * `save_on_each_node` on a shared disk, two ranks both logging), or a resumed run re-logging the
 * steps after its last checkpoint, write the same step's record again. A record is "the same
 * step logged again" when an earlier record of that step carried exactly the same metric keys;
 * a train record and an eval record of one step (different keys) are not a repeat. The later
 * values win (as the server's latest-wins upsert would keep them); this count lets the import
 * say so instead of dropping the earlier values silently.
 */

/** Keys whose values follow the wall clock, so they differ between two writers of the same step. */
const CLOCK_KEYS: ReadonlySet<string> = new Set(["elapsedS", "remainingS", "throughput"]);

/**
 * What {@link RepeatedSteps} found: `steps` = distinct steps logged more than once, `differing` =
 * those of them whose repeated values differ (wall-clock keys `elapsedS`, `remainingS`,
 * `throughput` left out of the comparison), `maxTimes` = most records of one step with the same keys.
 */
export interface RepeatedStepsSummary {
  steps: number;
  differing: number;
  maxTimes: number;
}

/** Counts repeated steps of one log, record by record (see the module comment). */
export class RepeatedSteps {
  private readonly firstValues = new Map<string, string>();
  private readonly times = new Map<string, number>();
  private readonly repeated = new Set<number>();
  private readonly differ = new Set<number>();
  private maxTimes = 1;

  /** Records the metrics one log record produced at `step` (in any order). */
  add(step: number, metrics: readonly TrainingMetric[]): void {
    if (metrics.length === 0) return;
    const sorted = [...metrics].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const signature = `${step}\u0000${sorted.map((m) => m.key).join("\u0000")}`;
    const values = stringifyJson(sorted.filter((m) => !CLOCK_KEYS.has(m.key)).map((m) => m.value));
    const first = this.firstValues.get(signature);
    if (first === undefined) {
      this.firstValues.set(signature, values);
      this.times.set(signature, 1);
      return;
    }
    const n = (this.times.get(signature) ?? 1) + 1;
    this.times.set(signature, n);
    this.maxTimes = Math.max(this.maxTimes, n);
    this.repeated.add(step);
    if (values !== first) this.differ.add(step);
  }

  /** The counts so far. */
  summary(): RepeatedStepsSummary {
    return {
      steps: this.repeated.size,
      differing: this.differ.size,
      maxTimes: this.repeated.size === 0 ? 0 : this.maxTimes,
    };
  }
}

/**
 * The import summary's sentence for repeated steps, e.g. "149 steps logged twice (84 with
 * different values); later values kept"; null when no step repeats.
 */
export function describeRepeatedSteps(r: RepeatedStepsSummary): string | null {
  if (r.steps === 0) return null;
  const times = r.maxTimes === 2 ? "twice" : "more than once";
  const differing =
    r.differing === 0 ? "all with the same values" : `${r.differing} with different values`;
  return `${r.steps} step${r.steps === 1 ? "" : "s"} logged ${times} (${differing}); later values kept`;
}
