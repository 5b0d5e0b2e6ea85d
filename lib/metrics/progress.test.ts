import { describe, expect, test } from "vitest";

import {
  accumulateCounter,
  aggregateWorkers,
  counterTotal,
  etaSeconds,
  isGaugeCounter,
  windowedRate,
  type CounterState,
  type ProgressSample,
  type WorkerProgress,
} from "./progress";

const S = 1000;
const s = (tS: number, done: number, workerId = "w0", bootId = "b1"): ProgressSample => ({
  tMs: tS * S,
  workerId,
  bootId,
  done,
});

describe("windowedRate", () => {
  test("no samples, or fewer than 2 per worker, is unknown (null)", () => {
    expect(windowedRate([], 0)).toBeNull();
    expect(windowedRate([s(0, 10)], 60 * S)).toBeNull();
    expect(windowedRate([s(0, 10, "w0"), s(30, 20, "w1"), s(40, 30, "w2")], 60 * S)).toBeNull();
  });

  test("two samples of one worker in different boots are still unknown: no interval within a boot", () => {
    expect(windowedRate([s(0, 100, "w0", "b1"), s(50, 5000, "w0", "b2")], 60 * S)).toBeNull();
  });

  test("a run that started 60 s ago is measured over 60 s, not the 300 s window", () => {
    // 600 items in 60 s = 10/s (dividing by 300 s would under-report 2/s)
    expect(windowedRate([s(0, 0), s(60, 600)], 60 * S)).toBe(10);
  });

  test("counts only the window, not since start; a pair straddling the window start counts pro rata", () => {
    // 0..200 s at 10/s, 200..400 s at 5/s; now 400 s, window [100 s, 400 s]
    // pair 1 overlaps 100 of its 200 s: 2000 × 0.5 = 1000; pair 2 inside: 1000 → 2000 / 300 s
    const samples = [s(0, 0), s(200, 2000), s(400, 3000)];
    expect(windowedRate(samples, 400 * S)).toBeCloseTo(2000 / 300, 12);
    // since start it would have been 3000 / 400 = 7.5
    expect(windowedRate(samples, 400 * S)).not.toBeCloseTo(7.5, 3);
  });

  test("custom window: 60 s window over a 100 s pair counts 60 % of it", () => {
    // window [40 s, 100 s]; 1000 × 60/100 = 600 items / 60 s
    expect(windowedRate([s(0, 0), s(100, 1000)], 100 * S, 60)).toBe(10);
  });

  test("items skipped on resume (first sample of a new boot) are never counted as processed", () => {
    // boot 1: 1000 items in 100 s; boot 2 reports 500000 at once (skipped), then 500 more in 100 s
    const samples = [
      s(0, 0, "w0", "b1"),
      s(100, 1000, "w0", "b1"),
      s(150, 500_000, "w0", "b2"),
      s(250, 500_500, "w0", "b2"),
    ];
    // covered 0..250 s (earliest sample is inside the window): 1500 / 250
    expect(windowedRate(samples, 250 * S)).toBe(6);
  });

  test("a counter that drops never yields a negative rate", () => {
    // 100 → 50 adds nothing; 50 → 110 adds 60 over covered 120 s
    expect(windowedRate([s(0, 100), s(60, 50), s(120, 110)], 120 * S)).toBe(0.5);
    expect(windowedRate([s(0, 100), s(60, 50)], 60 * S)).toBe(0);
  });

  test("samples exist but nothing increased: stalled (0), not unknown", () => {
    expect(windowedRate([s(0, 100), s(60, 100)], 120 * S)).toBe(0);
  });

  test("samples only long before the window: 0", () => {
    expect(windowedRate([s(0, 0), s(10, 100)], 1000 * S)).toBe(0);
  });

  test("a run that stopped reporting decays: covered time runs to now", () => {
    // 600 items between 0 and 60 s, now 120 s → 600 / 120
    expect(windowedRate([s(0, 0), s(60, 600)], 120 * S)).toBe(5);
  });

  test("sums workers; covered time starts at the earliest sample of any worker", () => {
    // w0: 500 in 0..100 s, w1: 300 in 40..100 s → 800 / 100 s
    const samples = [s(0, 0, "w0"), s(100, 500, "w0"), s(40, 0, "w1"), s(100, 300, "w1")];
    expect(windowedRate(samples, 100 * S)).toBe(8);
  });

  test("a worker with one sample still extends the covered time", () => {
    // w0: 600 in 60..120 s; w1 reported once at 0 s → covered 0..120 s
    expect(windowedRate([s(60, 0, "w0"), s(120, 600, "w0"), s(0, 0, "w1")], 120 * S)).toBe(5);
  });

  test("unsorted input gives the same result as sorted input", () => {
    const sorted = [s(0, 0), s(200, 2000), s(400, 3000), s(50, 0, "w1"), s(350, 900, "w1")];
    const shuffled = [sorted[3]!, sorted[2]!, sorted[0]!, sorted[4]!, sorted[1]!];
    // w0: 1000 + 1000 (as above); w1: 900 over 300 s, inside [100, 400] from 100 s: 900 × 250/300 = 750
    expect(windowedRate(shuffled, 400 * S)).toBeCloseTo(2750 / 300, 12);
    expect(windowedRate(shuffled, 400 * S)).toBe(windowedRate(sorted, 400 * S));
  });

  test("does not reorder the caller's array", () => {
    const input = [s(60, 600), s(0, 0)];
    windowedRate(input, 60 * S);
    expect(input.map((x) => x.tMs)).toEqual([60 * S, 0]);
  });

  test("a sample after now (clock skew) counts only up to now", () => {
    // pair 0..200 s, now 100 s: 2000 × 100/200 = 1000 items over covered 0..100 s
    expect(windowedRate([s(0, 0), s(200, 2000)], 100 * S)).toBe(10);
  });

  test("re-sent duplicate samples add nothing", () => {
    expect(windowedRate([s(0, 0), s(60, 600), s(60, 600), s(0, 0)], 60 * S)).toBe(10);
  });

  test("two boots of one worker id reporting at the same time are paired within their own boot", () => {
    // boot x: 400 in 0..40 s; boot y: 200 in 10..30 s → 600 / 40 s
    const samples = [
      s(0, 0, "w0", "x"),
      s(10, 1000, "w0", "y"),
      s(20, 200, "w0", "x"),
      s(30, 1200, "w0", "y"),
      s(40, 400, "w0", "x"),
    ];
    expect(windowedRate(samples, 40 * S)).toBe(15);
  });

  test("no elapsed covered time is unknown", () => {
    expect(windowedRate([s(60, 0), s(60, 10)], 60 * S)).toBeNull();
  });

  test("ignores samples with non-finite time or count", () => {
    const samples = [
      s(0, 0),
      { ...s(30, 0), done: Number.NaN },
      { ...s(30, 0), tMs: Number.NaN },
      s(60, 600),
    ];
    expect(windowedRate(samples, 60 * S)).toBe(10);
  });
});

describe("etaSeconds", () => {
  test("remaining / rate", () => {
    expect(etaSeconds(1000, 10)).toBe(100);
    // 100,000 samples at 0.2/s = 500,000 s (≈ 138.9 h)
    expect(etaSeconds(100_000, 0.2)).toBe(500_000);
    expect(etaSeconds(0, 5)).toBe(0);
  });

  test("null when remaining is unknown, negative or not finite", () => {
    expect(etaSeconds(null, 5)).toBeNull();
    expect(etaSeconds(-1, 5)).toBeNull();
    expect(etaSeconds(Number.NaN, 5)).toBeNull();
    expect(etaSeconds(Number.POSITIVE_INFINITY, 5)).toBeNull();
  });

  test("null when the rate is unknown, zero, negative or not finite", () => {
    expect(etaSeconds(100, null)).toBeNull();
    expect(etaSeconds(100, 0)).toBeNull();
    expect(etaSeconds(100, -2)).toBeNull();
    expect(etaSeconds(100, Number.NaN)).toBeNull();
    expect(etaSeconds(100, Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe("accumulateCounter / counterTotal", () => {
  const apply = (values: Array<[string, number]>): CounterState | undefined =>
    values.reduce<CounterState | undefined>(
      (st, [boot, v]) => accumulateCounter(st, boot, v),
      undefined,
    );

  test("first value starts the state", () => {
    expect(accumulateCounter(undefined, "b1", 7)).toEqual({ bootId: "b1", offset: 0, last: 7 });
  });

  test("1000, 1010, (restart) 5, 15 → 1025", () => {
    const st = apply([
      ["b1", 1000],
      ["b1", 1010],
      ["b2", 5],
      ["b2", 15],
    ]);
    expect(st).toEqual({ bootId: "b2", offset: 1010, last: 15 });
    expect(counterTotal(st)).toBe(1025);
  });

  test("a drop within the same boot is a reset: total stays monotonic", () => {
    const st = apply([
      ["b1", 1000],
      ["b1", 3],
      ["b1", 10],
    ]);
    expect(st).toEqual({ bootId: "b1", offset: 1000, last: 10 });
    expect(counterTotal(st)).toBe(1010);
  });

  test("a new boot folds even when its first value is higher (each boot counts from zero)", () => {
    expect(
      counterTotal(
        apply([
          ["b1", 10],
          ["b2", 50],
        ]),
      ),
    ).toBe(60);
  });

  test("several restarts add up", () => {
    expect(
      counterTotal(
        apply([
          ["b1", 10],
          ["b2", 20],
          ["b3", 30],
          ["b3", 35],
        ]),
      ),
    ).toBe(65);
  });

  test("same boot, same value: unchanged total", () => {
    const st = apply([
      ["b1", 10],
      ["b1", 10],
    ]);
    expect(st).toEqual({ bootId: "b1", offset: 0, last: 10 });
  });

  test("total never decreases over a sequence with restarts and resets", () => {
    const values: Array<[string, number]> = [
      ["a", 5],
      ["a", 9],
      ["a", 2],
      ["b", 0],
      ["b", 4],
      ["c", 1],
      ["c", 1],
      ["c", 0],
    ];
    let st: CounterState | undefined;
    let prev = 0;
    for (const [boot, v] of values) {
      st = accumulateCounter(st, boot, v);
      expect(counterTotal(st)).toBeGreaterThanOrEqual(prev);
      prev = counterTotal(st);
    }
    // 9 (a) + 2 (a after reset) + 4 (b) + 1 (c) + 0 = 16
    expect(prev).toBe(16);
  });

  test("non-finite or negative values are rejected: the same state comes back", () => {
    const st = apply([["b1", 100]])!;
    expect(accumulateCounter(st, "b1", Number.NaN)).toBe(st);
    expect(accumulateCounter(st, "b2", -1)).toBe(st);
    expect(accumulateCounter(st, "b1", Number.POSITIVE_INFINITY)).toBe(st);
  });

  test("an invalid first value yields a zero state", () => {
    const st = accumulateCounter(undefined, "b1", Number.NaN);
    expect(st).toEqual({ bootId: "b1", offset: 0, last: 0 });
    expect(counterTotal(accumulateCounter(st, "b1", 5))).toBe(5);
  });

  test("does not mutate the previous state", () => {
    const st: CounterState = { bootId: "b1", offset: 0, last: 100 };
    accumulateCounter(st, "b2", 5);
    expect(st).toEqual({ bootId: "b1", offset: 0, last: 100 });
  });

  test("counterTotal of no state is 0", () => {
    expect(counterTotal(undefined)).toBe(0);
  });
});

describe("isGaugeCounter", () => {
  test("names ending in inflight or starting with disk. are gauges", () => {
    expect(isGaugeCounter("s3.inflight")).toBe(true);
    expect(isGaugeCounter("inflight")).toBe(true);
    expect(isGaugeCounter("disk.freeBytes")).toBe(true);
  });

  test("everything else is cumulative; matching is case-sensitive", () => {
    expect(isGaugeCounter("s3.uploaded")).toBe(false);
    expect(isGaugeCounter("inflight.count")).toBe(false);
    expect(isGaugeCounter("mydisk.free")).toBe(false);
    expect(isGaugeCounter("s3.inFlight")).toBe(false);
  });
});

describe("aggregateWorkers", () => {
  const w = (over: Partial<WorkerProgress>): WorkerProgress => ({
    workerId: "w",
    done: null,
    total: null,
    counters: {},
    lastPushMs: 0,
    ...over,
  });

  test("no workers: everything unknown", () => {
    expect(aggregateWorkers([])).toEqual({
      done: null,
      total: null,
      counters: {},
      lastPushMs: null,
    });
  });

  test("every worker reports its shard: done and total are summed", () => {
    const r = aggregateWorkers(
      [0, 1, 2, 3].map((i) => w({ workerId: `w${i}`, done: 1000 * (i + 1), total: 228_500 })),
    );
    expect(r.done).toBe(10_000);
    expect(r.total).toBe(914_000);
  });

  test("only one worker sets the run total: that total, not a sum", () => {
    const r = aggregateWorkers([
      w({ done: 100, total: 914_000 }),
      w({ done: 200 }),
      w({ done: 300 }),
      w({ done: 400 }),
    ]);
    expect(r.done).toBe(1000);
    expect(r.total).toBe(914_000);
  });

  test("some totals missing: the largest reported total", () => {
    expect(
      aggregateWorkers([w({ done: 1, total: 500 }), w({ done: 2, total: 800 }), w({ done: 3 })])
        .total,
    ).toBe(800);
  });

  test("a worker with a total but no done yet still counts towards the sum", () => {
    const r = aggregateWorkers([w({ done: 10, total: 100 }), w({ total: 100 })]);
    expect(r).toMatchObject({ done: 10, total: 200 });
  });

  test("no worker reported done: done null, totals summed", () => {
    expect(aggregateWorkers([w({ total: 10 }), w({ total: 20 })])).toMatchObject({
      done: null,
      total: 30,
    });
  });

  test("done 0 is a report (0), not unknown", () => {
    expect(aggregateWorkers([w({ done: 0 }), w({})]).done).toBe(0);
  });

  test("no totals at all: total null", () => {
    expect(aggregateWorkers([w({ done: 5 })]).total).toBeNull();
  });

  test("counters summed per name; *.inflight summed; disk.* minimum (the fullest disk)", () => {
    const r = aggregateWorkers([
      w({
        counters: {
          "s3.uploaded": 1000,
          "s3.inflight": 60,
          "disk.freeBytes": 500e9,
          "local.deleted": 990,
        },
      }),
      w({ counters: { "s3.uploaded": 2000, "s3.inflight": 40, "disk.freeBytes": 120e9 } }),
      w({ counters: { "s3.failed": 3, "disk.freeBytes": 800e9 } }),
    ]);
    expect(r.counters).toEqual({
      "s3.uploaded": 3000,
      "s3.inflight": 100,
      "disk.freeBytes": 120e9,
      "local.deleted": 990,
      "s3.failed": 3,
    });
  });

  test("lastPushMs is the latest push of any worker", () => {
    expect(
      aggregateWorkers([w({ lastPushMs: 5000 }), w({ lastPushMs: 9000 }), w({ lastPushMs: 7000 })])
        .lastPushMs,
    ).toBe(9000);
  });

  test("non-finite inputs are ignored", () => {
    const r = aggregateWorkers([
      w({ done: Number.NaN, total: 50, counters: { x: Number.NaN, y: 1 } }),
      w({ done: 5, total: 50 }),
    ]);
    expect(r).toMatchObject({ done: 5, total: 100, counters: { y: 1 } });
  });
});
