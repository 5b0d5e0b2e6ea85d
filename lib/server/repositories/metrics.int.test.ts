import { afterAll, describe, expect, test } from "vitest";

import { planSeries } from "@/lib/metrics/tiers";
import { NotFoundError } from "@/lib/server/errors";
import { getRunMetrics, rebuildRunTiers, settle } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// Metric series answered from the pre-aggregated tiers, over points written by the real ingest
// code: a spike and every non-finite value survive, small series come back whole, 64-bit steps
// stay exact, a step range reads only that range, and the result equals a brute-force M4 over
// the raw points (first, lowest, highest, last finite point of each column).

/** Brute-force M4 over raw points with the columns planSeries picks for lo..hi. */
function bruteM4(
  points: Array<{ step: number; value: number }>,
  columns: number,
): Array<[number, number]> {
  const fin = points.filter((p) => Number.isFinite(p.value)).sort((a, b) => a.step - b.step);
  const lo = BigInt(fin[0]!.step);
  const plan = planSeries(lo, BigInt(fin.at(-1)!.step), columns);
  const cols = new Map<bigint, typeof fin>();
  for (const p of fin) {
    const c = ((BigInt(p.step) >> BigInt(plan.bits)) - (lo >> BigInt(plan.bits))) / plan.perColumn;
    cols.set(c, [...(cols.get(c) ?? []), p]);
  }
  const keep = new Map<number, number>();
  for (const list of cols.values()) {
    const byValue = (dir: number) =>
      [...list].sort((a, b) => dir * (a.value - b.value) || a.step - b.step)[0]!;
    for (const p of [list[0]!, byValue(1), byValue(-1), list.at(-1)!]) keep.set(p.step, p.value);
  }
  for (const p of points) if (!Number.isFinite(p.value)) keep.set(p.step, p.value);
  return [...keep].sort((a, b) => a[0] - b[0]);
}

const { prisma, pool, ingest, startRun: startRunOf, close } = await ingestHarness("train-host");
afterAll(close);
const startRun = () => startRunOf("training", "drafter");

/** A noisy decreasing loss over `n` steps, deterministic. */
function lossAt(step: number): number {
  return 2 / (1 + step / 500) + 0.05 * Math.sin(step * 12.9898);
}

describe("getRunMetrics", () => {
  test("answers a long series from tiers with M4 columns, keeping the spike and every NaN/±Infinity", async () => {
    const { run, id } = await startRun();
    const special = new Map<number, number | string>([
      [1200, "NaN"],
      [2345, 100],
      [3000, "NaN"],
      [4000, "Infinity"],
      [4500, "-Infinity"],
    ]);
    const points = Array.from({ length: 5000 }, (_, step) => ({
      key: "loss",
      step,
      value: special.get(step) ?? lossAt(step),
    }));
    for (let i = 0; i < points.length; i += 2500)
      await ingest({ type: "run.metrics", run, points: points.slice(i, i + 2500) });
    await ingest({
      type: "run.metrics",
      run,
      points: [0, 100, 200].map((step) => ({ key: "lr", step, value: 3e-4 / (1 + step) })),
    });

    const view = await getRunMetrics(prisma, id, { maxPoints: 1000 });
    expect(view.maxPoints).toBe(1000);
    expect(view.series.map((s) => s.key)).toEqual(["loss", "lr"]);
    const loss = view.series[0]!;
    expect(loss.total).toBe(5000);
    expect(loss.shown).toBe(loss.points.length);
    expect(loss.shown).toBeLessThanOrEqual(1000 + 4);
    expect(loss.shown).toBeGreaterThan(400);
    const at = new Map(loss.points.map((p) => [p.step, p.value]));
    expect(at.get(2345)).toBe(100);
    expect(at.get(1200)).toBeNaN();
    expect(at.get(3000)).toBeNaN();
    expect(at.get(4000)).toBe(Infinity);
    expect(at.get(4500)).toBe(-Infinity);
    const steps = loss.points.map((p) => p.step as number);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));

    // Point for point the brute-force M4 over the raw points.
    const numeric = points.map((p) => ({
      step: p.step,
      value: typeof p.value === "string" ? Number(p.value) : p.value,
    }));
    expect(loss.points.map((p) => [p.step, p.value])).toEqual(bruteM4(numeric, 250));

    const lr = view.series[1]!;
    expect(lr).toEqual({
      key: "lr",
      total: 3,
      shown: 3,
      points: [0, 100, 200].map((step) => ({ step, value: 3e-4 / (1 + step) })),
    });

    // Zoomed: a range returns only its points, raw when they fit the budget, M4 of the range otherwise.
    const zoom = (
      await getRunMetrics(prisma, id, {
        maxPoints: 1000,
        keys: ["loss"],
        fromStep: 2000n,
        toStep: 2600n,
      })
    ).series[0]!;
    expect(zoom.total).toBe(5000);
    expect(zoom.points.map((p) => [p.step, p.value])).toEqual(
      numeric.filter((p) => p.step >= 2000 && p.step <= 2600).map((p) => [p.step, p.value]),
    );
    const wide = (
      await getRunMetrics(prisma, id, {
        maxPoints: 100,
        keys: ["loss"],
        fromStep: 1001n,
        toStep: 4321n,
      })
    ).series[0]!;
    expect(wide.points.map((p) => [p.step, p.value])).toEqual(
      bruteM4(
        numeric.filter((p) => p.step >= 1001 && p.step <= 4321),
        25,
      ),
    );
    expect(wide.points.some((p) => p.step === 2345 && p.value === 100)).toBe(true);
  });

  test("returns a series within budget whole, 64-bit steps as exact strings, and filters by key", async () => {
    const { run, id } = await startRun();
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "tau", step: "9007199254740993", value: 3.5 },
        { key: "tau", step: "9223372036854775807", value: "NaN" },
        { key: "tau", step: 7, value: 2.25 },
        { key: "accuracy", step: 1, value: 0.5 },
      ],
    });
    const view = await getRunMetrics(prisma, id, { keys: ["tau"] });
    expect(view.series).toEqual([
      {
        key: "tau",
        total: 3,
        shown: 3,
        points: [
          { step: 7, value: 2.25 },
          { step: "9007199254740993", value: 3.5 },
          { step: "9223372036854775807", value: NaN },
        ],
      },
    ]);
    expect((await getRunMetrics(prisma, id)).series.map((s) => s.key)).toEqual(["accuracy", "tau"]);
  });

  test("downsampling keeps 64-bit steps exact (steps near 2^62 and below zero)", async () => {
    const { run, id } = await startRun();
    const base = 2n ** 62n;
    const gap = 2n ** 40n;
    const points = Array.from({ length: 30 }, (_, i) => ({
      key: "big",
      step: (base + BigInt(i) * gap + 1n).toString(),
      value: i === 17 ? 9 : (i % 5) / 10,
    }));
    points.push(
      { key: "big", step: "-4294967297", value: -1 },
      { key: "big", step: "-3", value: 8 },
    );
    await ingest({ type: "run.metrics", run, points });
    const big = (await getRunMetrics(prisma, id, { maxPoints: 10 })).series[0]!;
    expect(big.total).toBe(32);
    const sent = new Set(points.map((p) => p.step));
    for (const p of big.points) expect(sent.has(String(p.step))).toBe(true);
    const byStep = new Map(big.points.map((p) => [String(p.step), p.value]));
    expect(byStep.get((base + 17n * gap + 1n).toString())).toBe(9);
    expect(byStep.get("-4294967297")).toBe(-1);
    expect(big.points.map((p) => BigInt(p.step))).toEqual(
      [...big.points.map((p) => BigInt(p.step))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

  test("a flat series keeps the ends of each column; a run without metrics has no series; unknown runs throw", async () => {
    const { run, id } = await startRun();
    await ingest({
      type: "run.metrics",
      run,
      points: Array.from({ length: 50 }, (_, step) => ({ key: "flat", step, value: 1 })),
    });
    const flat = (await getRunMetrics(prisma, id, { maxPoints: 10 })).series[0]!;
    expect(flat.total).toBe(50);
    // 2 columns of whole 16-step buckets: steps 0..31 and 32..49.
    expect(flat.points.map((p) => p.step)).toEqual([0, 31, 32, 49]);
    expect((await startRun().then((r) => getRunMetrics(prisma, r.id))).series).toEqual([]);
    await expect(getRunMetrics(prisma, 987_654_321)).rejects.toBeInstanceOf(NotFoundError);
  });
  test("tiers kept only up to each key's top tier (grown batch by batch) answer exactly as every tier rebuilt from raw rows", async () => {
    const { run, id } = await startRun();
    // "grow" widens its step range batch by batch: top tier 8 → 12 → 20 → 60 (a negative step).
    const batches: Array<Array<[number, number | string]>> = [
      Array.from({ length: 16 }, (_, s) => [s, lossAt(s)]),
      Array.from({ length: 285 }, (_, i) => [16 + i, i === 100 ? 50 : lossAt(16 + i)]),
      Array.from({ length: 400 }, (_, i) => [70_000 + i, i === 7 ? "NaN" : lossAt(70_000 + i)]),
      [
        [-3, -9],
        [5, 1],
      ],
    ];
    const tops: number[] = [];
    for (const b of batches) {
      await ingest({
        type: "run.metrics",
        run,
        points: [
          ...b.map(([step, value]) => ({ key: "grow", step, value })),
          { key: "loss", step: tops.length * 1000, value: 1 },
        ],
      });
      await settle(pool, id); // the store's tables hold what the fold moved there
      tops.push(
        (
          await pool.query(
            `SELECT "topBits" FROM "MetricSeries" WHERE "runId" = $1 AND key = 'grow'`,
            [id],
          )
        ).rows[0].topBits,
      );
    }
    expect(tops).toEqual([8, 12, 20, 60]);
    const requests = [
      { maxPoints: 4 },
      { maxPoints: 40 },
      { maxPoints: 2000 },
      { maxPoints: 8, fromStep: 0n, toStep: 400n },
      { maxPoints: 8, fromStep: -(2n ** 40n), toStep: 2n ** 40n },
    ];
    const answer = () => Promise.all(requests.map((r) => getRunMetrics(prisma, id, r)));
    const kept = await answer();
    expect(
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM "MetricTier" WHERE "runId" = $1 AND key = 'loss'`,
          [id],
        )
      ).rows[0].n,
    ).toBeLessThan(15 * 4);
    await pool.query(`DELETE FROM "MetricTier" WHERE "runId" = $1`, [id]);
    await rebuildRunTiers(pool, id);
    expect(await answer()).toEqual(kept);
    expect(kept[2]!.series.find((s) => s.key === "grow")!.total).toBe(16 + 285 + 400 + 1);
  });
});
