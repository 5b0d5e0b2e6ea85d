/**
 * Pure progress math for pipeline runs: throughput over a sliding window, ETA, cumulative counters
 * kept monotonic across worker restarts, and run totals across workers. No clock here: every
 * "now" is passed in as epoch milliseconds.
 */

/** One progress report: `done` items completed so far by worker `workerId` in its boot `bootId`, at `tMs` (epoch ms). */
export type ProgressSample = { tMs: number; workerId: string; bootId: string; done: number };

/** Items/s over [nowMs − windowS·1000, nowMs] from per-(worker, boot) increases over the time covered by samples (any order); null when no (worker, boot) has 2 samples, 0 when stalled. */
export function windowedRate(
  samples: readonly ProgressSample[],
  nowMs: number,
  windowS = 300,
): number | null {
  // Each pair of consecutive samples of one (worker, boot) contributes its increase times the share
  // of its time span inside the window; the sum is divided by the covered time (see below).
  // Non-finite times or counts are ignored; with no elapsed covered time the rate is null.
  const windowStartMs = nowMs - windowS * 1000;
  const valid = samples.filter((s) => Number.isFinite(s.tMs) && Number.isFinite(s.done));
  if (valid.length === 0) return null;

  // Pairs are formed within one (worker, boot), never across boots: the first report of a new boot
  // carries every item it skipped on resume, which was not processed in this window. Grouping by
  // boot (rather than "consecutive reports of the worker that happen to share a boot") also keeps
  // two processes that wrongly share a worker id from cancelling each other out.
  const groups = new Map<string, ProgressSample[]>();
  for (const s of valid) {
    const key = JSON.stringify([s.workerId, s.bootId]);
    const group = groups.get(key);
    if (group) group.push(s);
    else groups.set(key, [s]);
  }

  let hasPair = false;
  let items = 0;
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    hasPair = true;
    // Frames can arrive out of order (resends after a reconnect); equal times order by `done`.
    group.sort((a, b) => a.tMs - b.tMs || a.done - b.done);
    for (let i = 1; i < group.length; i++) {
      const a = group[i - 1]!;
      const b = group[i]!;
      const increase = b.done - a.done;
      if (increase <= 0) continue; // a counter that drops or stands still adds nothing
      const durationMs = b.tMs - a.tMs;
      if (durationMs === 0) {
        if (a.tMs >= windowStartMs && a.tMs <= nowMs) items += increase;
        continue;
      }
      const overlapMs = Math.min(b.tMs, nowMs) - Math.max(a.tMs, windowStartMs);
      if (overlapMs > 0) items += (increase * overlapMs) / durationMs;
    }
  }
  if (!hasPair) return null;

  // Covered time starts at the first report we have (a run that began 60 s ago is measured over
  // 60 s, not 300 s) and ends at now, so a run that stopped reporting decays towards 0.
  let earliestMs = Infinity;
  for (const s of valid) if (s.tMs < earliestMs) earliestMs = s.tMs;
  const coveredMs = nowMs - Math.max(windowStartMs, earliestMs);
  if (!(coveredMs > 0)) return null;
  return items / (coveredMs / 1000);
}

/** Seconds until `remaining` items are done at `ratePerS` items/s; null when remaining is null/negative/non-finite or the rate is null, ≤ 0 or non-finite. */
export function etaSeconds(remaining: number | null, ratePerS: number | null): number | null {
  if (remaining === null || !Number.isFinite(remaining) || remaining < 0) return null;
  if (ratePerS === null || !Number.isFinite(ratePerS) || ratePerS <= 0) return null;
  return remaining / ratePerS;
}

/** A cumulative counter of one worker: `last` value seen in boot `bootId`, plus `offset` carried over from earlier boots/resets. */
export type CounterState = { bootId: string; offset: number; last: number };

/** Applies one cumulative value of a worker boot (new boot or drop folds `last` into `offset`); a non-finite/negative value is rejected: state unchanged (zero state if none). */
export function accumulateCounter(
  state: CounterState | undefined,
  bootId: string,
  value: number,
): CounterState {
  if (!Number.isFinite(value) || value < 0) return state ?? { bootId, offset: 0, last: 0 };
  if (state === undefined) return { bootId, offset: 0, last: value };
  if (state.bootId === bootId && value >= state.last)
    return { bootId, offset: state.offset, last: value };
  // A restart (new boot) or a reset within the boot: the old boot's count is history, keep it.
  return { bootId, offset: state.offset + state.last, last: value };
}

/** Monotonic total of a counter across boots and resets (offset + last); 0 for no state. */
export function counterTotal(state: CounterState | undefined): number {
  return state === undefined ? 0 : state.offset + state.last;
}

/** True for counter names that are gauges (current values, never accumulated): ending in `inflight` or starting with `disk.` (case-sensitive, as the protocol documents). */
export function isGaugeCounter(name: string): boolean {
  return name.endsWith("inflight") || name.startsWith("disk.");
}

/** Where one worker of a run stands: item counts, counter totals (already monotonic) and last push time (epoch ms). */
export type WorkerProgress = {
  workerId: string;
  done: number | null;
  total: number | null;
  counters: Record<string, number>;
  lastPushMs: number;
};

/** Run-level figures aggregated over its workers. */
export type RunProgress = {
  done: number | null;
  total: number | null;
  counters: Record<string, number>;
  lastPushMs: number | null;
};

/** Run totals: done summed (null if none); total summed if every done-reporter has one, else max (null if none); counters summed, `disk.*` min. */
export function aggregateWorkers(workers: readonly WorkerProgress[]): RunProgress {
  let done: number | null = null;
  let totalSum: number | null = null;
  let totalMax: number | null = null;
  let everyDoneHasTotal = true;
  let lastPushMs: number | null = null;
  const counters: Record<string, number> = {};

  for (const w of workers) {
    const wDone = w.done !== null && Number.isFinite(w.done) ? w.done : null;
    const wTotal = w.total !== null && Number.isFinite(w.total) ? w.total : null;
    const hasDone = wDone !== null;
    const hasTotal = wTotal !== null;
    if (wDone !== null) done = (done ?? 0) + wDone;
    if (wTotal !== null) {
      totalSum = (totalSum ?? 0) + wTotal;
      totalMax = totalMax === null ? wTotal : Math.max(totalMax, wTotal);
    }
    if (hasDone && !hasTotal) everyDoneHasTotal = false;
    if (Number.isFinite(w.lastPushMs) && (lastPushMs === null || w.lastPushMs > lastPushMs))
      lastPushMs = w.lastPushMs;

    for (const [name, value] of Object.entries(w.counters)) {
      if (!Number.isFinite(value)) continue;
      const prev = counters[name];
      // Free space: the run is blocked by its fullest disk, and workers on one host share a disk,
      // so a sum would be meaningless. In-flight uploads per worker do add up (each has its own pool).
      if (name.startsWith("disk."))
        counters[name] = prev === undefined ? value : Math.min(prev, value);
      else counters[name] = (prev ?? 0) + value;
    }
  }

  // Each worker's `done` counts its own shard, so a total reported by every worker is read as its
  // shard size and summed (914,000 samples over 4 workers: 4 × 228,500). When only some workers
  // report a total, it is the run-level total set by one of them (typically rank 0), so take the
  // largest rather than add a run total to nothing. Workers that all repeat the run-level total
  // would be over-counted; callers that know the total from `run.start` should prefer it.
  const total = everyDoneHasTotal ? totalSum : totalMax;
  return { done, total, counters, lastPushMs };
}
