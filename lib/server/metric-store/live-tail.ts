import type { PrismaClient } from "@/generated/prisma/client";
import { STEP_MAX, stepValue } from "@/lib/metrics/steps";
import type { MetricSeriesView, RunMetricsView } from "@/lib/view-models/metrics";

import { keyTotals, mergeByStep, readNonFinite, readRaw, settleRunForRead } from "./read-series";

/**
 * Points a series may gain past its point budget before the chart read is made again in full
 * (a quarter of the budget: 250 for the default 1,000, 25 s of a 10 Hz trainer).
 */
export const TAIL_SHARE = 0.25;

/**
 * A live re-read of run `prev.runId`'s chart series that reads only the points appended since
 * `prev` (a {@link getRunMetrics} answer, or an earlier answer of this function, in the API's form:
 * steps as numbers or decimal strings): per key, every point with a step above the last one
 * `prev` holds, finite and NaN/±Infinity, added after `prev`'s points as they are (raw, so every
 * spike stays), with `total` and `shown` brought up to date. Keys that gained nothing keep their
 * series object. Points still pending are folded first.
 *
 * Returns null when only a full read answers exactly: a key appeared, a key had points stored at
 * or below its last shown step since `prev` (its count grew by more than its tail; out-of-order
 * or late points), `prev` held a key with no point, or a series would exceed its budget by more
 * than {@link TAIL_SHARE} (it is downsampled again). A value rewritten at an already shown step
 * leaves the count as it was and is not seen here: the caller reads in full now and then
 * (lib/server/live/run-live-read.ts).
 * @throws NotFoundError when the run does not exist.
 */
export async function extendRunMetrics(
  db: PrismaClient,
  prev: RunMetricsView,
): Promise<RunMetricsView | null> {
  const runId = prev.runId;
  await settleRunForRead(db, runId);
  const totals = await keyTotals(db, runId, undefined);
  if (totals.length !== prev.series.length) return null;
  const ranges: Array<{ key: string; lo: bigint; hi: bigint }> = [];
  let lowest = STEP_MAX;
  for (const [i, t] of totals.entries()) {
    const s = prev.series[i]!;
    const last = s.points[s.points.length - 1];
    if (s.key !== t.key || last === undefined) return null;
    const stored = t.finite + t.nonFinite;
    if (stored === s.total) continue;
    if (stored < s.total) return null;
    const lo = BigInt(last.step) + 1n;
    if (lo > STEP_MAX) return null;
    ranges.push({ key: t.key, lo, hi: STEP_MAX });
    if (lo < lowest) lowest = lo;
  }
  if (ranges.length === 0) return prev;
  const [finite, special] = await Promise.all([
    readRaw(db, runId, ranges),
    readNonFinite(
      db,
      runId,
      ranges.map((r) => r.key),
      lowest,
      STEP_MAX,
    ),
  ]);
  const budget = prev.maxPoints * (1 + TAIL_SHARE);
  const grown = new Map<string, MetricSeriesView>();
  for (const r of ranges) {
    const tail = mergeByStep(
      finite.get(r.key) ?? [],
      (special.get(r.key) ?? []).filter((p) => p.step >= r.lo),
    );
    const s = prev.series.find((x) => x.key === r.key)!;
    const t = totals.find((x) => x.key === r.key)!;
    // Every point stored since `prev` must be in the tail; else some landed at an older step.
    if (s.total + tail.length !== t.finite + t.nonFinite) return null;
    const points = [...s.points, ...tail.map((p) => ({ step: stepValue(p.step), value: p.value }))];
    if (points.length > budget) return null;
    grown.set(r.key, { key: s.key, points, total: s.total + tail.length, shown: points.length });
  }
  return { ...prev, series: prev.series.map((s) => grown.get(s.key) ?? s) };
}
