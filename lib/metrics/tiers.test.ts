import { describe, expect, test } from "vitest";

import { seededRng } from "@/lib/random";

import {
  addPoint,
  bucketSpan,
  COARSEST_BITS,
  coverRange,
  emptyAggregate,
  m4Points,
  mergeAggregate,
  planSeries,
  READ_FACTOR,
  TIER_BITS,
  tierRowsOf,
  topBitsOf,
  type TierAggregate,
} from "./tiers";

/** Steps covered by a piece, as [first, last] inclusive. */
function stepsOf(p: { bits: number; lo: bigint; hi: bigint }): [bigint, bigint] {
  const s = BigInt(p.bits);
  return [p.lo << s, ((p.hi + 1n) << s) - 1n];
}

describe("coverRange", () => {
  test("covers lo..hi exactly, in order, without gaps or overlap (incl. negative and 64-bit edges)", () => {
    const cases: Array<[bigint, bigint, number]> = [
      [0n, 49n, 4],
      [3n, 1_000_003n, 16],
      [-4294967297n, 17n, 32],
      [-(2n ** 63n), 2n ** 63n - 1n, 60],
      [2n ** 62n + 1n, 2n ** 62n + 2n ** 40n * 29n + 1n, 40],
      [5n, 5n, 8],
    ];
    for (const [lo, hi, bits] of cases) {
      const pieces = coverRange(lo, hi, bits);
      let next = lo;
      for (const p of pieces) {
        const [a, b] = stepsOf(p);
        expect(a).toBe(next);
        expect(b).toBeGreaterThanOrEqual(a);
        expect(p.bits).toBeLessThanOrEqual(bits);
        next = b + 1n;
      }
      expect(next).toBe(hi + 1n);
      expect(pieces.length).toBeLessThanOrEqual(2 * 16 * (bits / 4 + 1));
    }
  });
});

describe("planSeries", () => {
  test("picks the finest tier with at most READ_FACTOR × columns buckets and at most `columns` columns", () => {
    for (const [lo, hi, columns] of [
      [0n, 999_999n, 250],
      [0n, 9_999_999n, 250],
      [17n, 4000n, 250],
      [-(2n ** 63n), 2n ** 63n - 1n, 2],
    ] as Array<[bigint, bigint, number]>) {
      const plan = planSeries(lo, hi, columns);
      const span = bucketSpan(lo, hi, plan.bits);
      expect(span).toBeLessThanOrEqual(BigInt(READ_FACTOR * columns));
      if (plan.bits > 0)
        expect(bucketSpan(lo, hi, plan.bits - 4)).toBeGreaterThan(BigInt(READ_FACTOR * columns));
      expect((span + plan.perColumn - 1n) / plan.perColumn).toBeLessThanOrEqual(BigInt(columns));
    }
  });
});

/** Points as the columns tierRowsOf takes. */
const columns = (pts: Array<{ key: string; step: bigint; value: number }>) => ({
  key: pts.map((p) => p.key),
  step: pts.map((p) => p.step),
  value: pts.map((p) => p.value),
});

describe("aggregates", () => {
  test("merging in any grouping equals one pass over the points (ties: lowest step)", () => {
    const values = [3, 1, 1, 7, 7, -2, NaN, 5, -2, Infinity];
    const one = emptyAggregate();
    const pts = values.map((value, i) => ({ key: "k", step: BigInt(i * 3), value }));
    for (const r of tierRowsOf(columns(pts)).filter((r) => r.bits === 60))
      mergeAggregate(one, r.agg);
    const parts = tierRowsOf(columns(pts)).filter((r) => r.bits === 4);
    const merged: TierAggregate = emptyAggregate();
    for (const r of parts.reverse()) mergeAggregate(merged, r.agg);
    const expected = {
      n: 8,
      nonFinite: 2,
      minStep: 15n,
      minValue: -2,
      maxStep: 9n,
      maxValue: 7,
      firstStep: 0n,
      firstValue: 3,
      lastStep: 24n,
      lastValue: -2,
    };
    expect(one).toEqual(expected);
    expect(merged).toEqual(expected);
    expect(tierRowsOf(columns(pts)).filter((r) => r.bits === 4).length).toBe(2);
    expect(new Set(tierRowsOf(columns(pts)).map((r) => r.bits)).size).toBe(TIER_BITS.length);
  });

  test("m4Points keeps first, lowest, highest and last of each column, each step once", () => {
    const pts = [5, 9, 1, 4, 4, 4, 4, 8].map((value, i) => ({ key: "k", step: BigInt(i), value }));
    const raw = pts.map((p) => ({
      n: 1,
      nonFinite: 0,
      minStep: p.step,
      minValue: p.value,
      maxStep: p.step,
      maxValue: p.value,
      firstStep: p.step,
      firstValue: p.value,
      lastStep: p.step,
      lastValue: p.value,
    }));
    const out = m4Points(raw, 0n, { bits: 0, perColumn: 4n, columns: 2 });
    expect(out.map((p) => [Number(p.step), p.value])).toEqual([
      [0, 5],
      [1, 9],
      [2, 1],
      [3, 4],
      [4, 4],
      [7, 8],
    ]);
  });
});

describe("tierRowsOf", () => {
  test("the finest tier point by point and each coarser from the one below equal a summary per tier straight from the points", () => {
    const rnd = seededRng(11);
    const pts = Array.from({ length: 3000 }, (_, i) => {
      const r = rnd();
      const step =
        r < 0.6
          ? BigInt(i)
          : r < 0.8
            ? BigInt(Math.floor(rnd() * 100_000)) - 50_000n
            : BigInt(Math.floor(rnd() * 2 ** 52)) * 2048n * (rnd() < 0.5 ? -1n : 1n);
      return {
        key: rnd() < 0.5 ? "loss" : "lr",
        step,
        value: rnd() < 0.05 ? NaN : Math.round(rnd() * 100),
      };
    });
    const distinct = [...new Map(pts.map((p) => [`${p.key}|${p.step}`, p])).values()];
    const naive = new Map<string, TierAggregate>();
    for (const bits of TIER_BITS) {
      for (const p of distinct) {
        const id = `${bits}|${p.key}|${p.step >> BigInt(bits)}`;
        const agg = naive.get(id) ?? emptyAggregate();
        addPoint(agg, p.step, p.value);
        naive.set(id, agg);
      }
    }
    const rows = tierRowsOf(columns(distinct));
    expect(new Map(rows.map((r) => [`${r.bits}|${r.key}|${r.bucket}`, r.agg]))).toEqual(naive);
    expect(rows).toHaveLength(naive.size);
  });
});

describe("topBitsOf", () => {
  test("is the finest tier whose one bucket holds the whole step range", () => {
    // Tier 4 is not stored (FINEST_STORED_BITS): the finest top tier is 8.
    expect(topBitsOf(0n, 0n)).toBe(8);
    expect(topBitsOf(0n, 15n)).toBe(8);
    expect(topBitsOf(0n, 255n)).toBe(8);
    expect(topBitsOf(255n, 256n)).toBe(12); // two steps apart, but across a tier-8 bucket edge
    expect(topBitsOf(0n, 100_000n)).toBe(20);
    expect(topBitsOf(2n ** 40n, 2n ** 40n + 86_400_000n)).toBe(28); // a day of ms timestamps as steps
    // Steps of both signs never share a bucket: the coarsest tier.
    expect(topBitsOf(-1n, 0n)).toBe(COARSEST_BITS);
    expect(topBitsOf(-(2n ** 63n), 2n ** 63n - 1n)).toBe(COARSEST_BITS);
    // Whatever the range, every step of it lies in one bucket of the tier returned (below 60).
    for (const [lo, hi] of [
      [3n, 4_000n],
      [1_000_000n, 1_048_575n],
      [-300n, -1n],
    ] as const) {
      const bits = BigInt(topBitsOf(lo, hi));
      expect(lo >> bits).toBe(hi >> bits);
      expect(lo >> (bits - 4n)).not.toBe(hi >> (bits - 4n));
    }
  });
});
