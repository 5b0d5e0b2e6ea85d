import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { planSeries } from "@/lib/metrics/tiers";
import { stringifyApiJson } from "@/lib/protocol/api-json";
import { getRunMetrics, settle, type RunMetricsOptions } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// The chart read (getRunMetrics) against a brute force over every stored point (the view
// "MetricPoint"), byte for byte as the API writes it, on a run holding blocks, rows (re-sent steps
// that moved blocks into rows), pending points, NaN/±Infinity, a spike, negative steps and steps
// beyond 2^53; through the raw pool (points read as stored arrays) and through Prisma alone.

const { databaseUrl, pool, prisma, ingest, startRun, close } =
  await ingestHarness("read-series-host");
const unbound = new PrismaClient({
  adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }),
});
afterAll(async () => {
  await unbound.$disconnect();
  await close();
});

interface Point {
  step: bigint;
  value: number;
}

/** The answer the read must give, computed from every point of the run (steps as bigints throughout). */
async function bruteForce(runId: number, o: RunMetricsOptions): Promise<unknown> {
  const maxPoints = Math.max(4, Math.floor(o.maxPoints ?? 1000));
  const from = o.fromStep ?? -(2n ** 63n);
  const to = o.toStep ?? 2n ** 63n - 1n;
  const rows = (
    await pool.query<{ key: string; stepText: string; value: number }>(
      `SELECT key, step::text AS "stepText", value FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step`,
      [runId],
    )
  ).rows;
  const byKey = new Map<string, Point[]>();
  for (const r of rows) {
    if (o.keys && !o.keys.includes(r.key)) continue;
    byKey.set(r.key, [...(byKey.get(r.key) ?? []), { step: BigInt(r.stepText), value: r.value }]);
  }
  const series = [];
  for (const [key, all] of byKey) {
    const finiteAll = all.filter((p) => Number.isFinite(p.value));
    const inRange = (p: Point) => p.step >= from && p.step <= to;
    let finite = finiteAll.filter(inRange);
    if (finite.length > maxPoints) {
      const lo = finiteAll[0]!.step > from ? finiteAll[0]!.step : from;
      const hi = finiteAll.at(-1)!.step < to ? finiteAll.at(-1)!.step : to;
      const plan = planSeries(lo, hi, Math.floor(maxPoints / 4));
      const shift = BigInt(plan.bits);
      const columns = new Map<bigint, Point[]>();
      for (const p of finite) {
        const c = ((p.step >> shift) - (lo >> shift)) / plan.perColumn;
        columns.set(c, [...(columns.get(c) ?? []), p]);
      }
      const keep = new Map<bigint, Point>();
      for (const list of columns.values()) {
        const pick = (dir: number) =>
          list.reduce((best, p) => (dir * (p.value - best.value) < 0 ? p : best));
        for (const p of [list[0]!, pick(1), pick(-1), list.at(-1)!]) keep.set(p.step, p);
      }
      finite = [...keep.values()];
    }
    const points = [...finite, ...all.filter((p) => !Number.isFinite(p.value) && inRange(p))].sort(
      (a, b) => (a.step < b.step ? -1 : a.step > b.step ? 1 : 0),
    );
    series.push({
      key,
      points: points.map((p) => ({
        step: Number.isSafeInteger(Number(p.step)) ? Number(p.step) : p.step.toString(),
        value: p.value,
      })),
      total: all.length,
      shown: points.length,
    });
  }
  return { runId, maxPoints, series };
}

const label = (o: RunMetricsOptions) => JSON.stringify(o, (_, v: unknown) => String(v));

/** Where two answers first differ, as a short text (the series' key, the point's index, both API JSON texts), or null. */
function firstDifference(got: unknown, expected: unknown): string | null {
  const g = JSON.parse(stringifyApiJson(got)) as {
    series: Array<{ key: string; points: unknown[] }>;
  };
  const e = JSON.parse(stringifyApiJson(expected)) as typeof g;
  if (g.series.length !== e.series.length)
    return `keys ${g.series.map((x) => x.key).join()} vs ${e.series.map((x) => x.key).join()}`;
  for (const [i, gs] of g.series.entries()) {
    const es = e.series[i]!;
    if (stringifyApiJson(gs) === stringifyApiJson(es)) continue;
    const n = Math.max(gs.points.length, es.points.length);
    for (let j = 0; j < n; j++)
      if (JSON.stringify(gs.points[j]) !== JSON.stringify(es.points[j]))
        return `${gs.key} point ${j} of ${gs.points.length} vs ${es.points.length}: ${JSON.stringify(gs.points[j])} vs ${JSON.stringify(es.points[j])}`;
    return `${gs.key}: ${JSON.stringify({ ...gs, points: undefined })} vs ${JSON.stringify({ ...es, points: undefined })}`;
  }
  return stringifyApiJson(got) === stringifyApiJson(expected) ? null : "runId or maxPoints";
}

const REQUESTS: RunMetricsOptions[] = [
  {},
  { maxPoints: 8 },
  { maxPoints: 40 },
  { maxPoints: 100 },
  { maxPoints: 400, fromStep: 50n, toStep: 2500n },
  { maxPoints: 1000, fromStep: 90n, toStep: 130n },
  { maxPoints: 12, fromStep: -(2n ** 62n), toStep: 2n ** 62n },
  { maxPoints: 60, fromStep: 2n ** 60n, toStep: 2n ** 60n + 200_000n },
  { maxPoints: 20, keys: ["big", "neg"] },
];

describe("the chart read (getRunMetrics)", () => {
  test("equals a brute force over every point: blocks, rows, pending, NaN, spikes, negative and 64-bit steps", async () => {
    const { run, id } = await startRun("training");
    const wave = (k: number, s: number) => 1 + Math.sin(s / 7 + k) / 2;
    // "loss": 3,000 steps in frames of 600 (blocks), a spike, NaN and ±Infinity; then steps
    // 100-119 sent again (their blocks become rows), and a last small frame left pending.
    for (let s0 = 0; s0 < 3000; s0 += 600)
      await ingest({
        type: "run.metrics",
        run,
        points: Array.from({ length: 600 }, (_, i) => {
          const step = s0 + i;
          const value =
            step === 1234 ? 1e6 : step === 77 ? "NaN" : step === 2999 ? "-Infinity" : wave(0, step);
          return { key: "loss", step, value: step === 1500 ? "Infinity" : value };
        }),
      });
    // "big": 300 steps beyond 2^53, 1,000 apart, a dip; "neg": negative steps, a few per frame (rows).
    const big = 2n ** 60n;
    await ingest({
      type: "run.metrics",
      run,
      points: Array.from({ length: 300 }, (_, i) => ({
        key: "big",
        step: (big + BigInt(i * 1000)).toString(),
        value: i === 150 ? -5 : wave(1, i),
      })),
    });
    for (let s0 = -600; s0 < 600; s0 += 40)
      await ingest({
        type: "run.metrics",
        run,
        points: Array.from({ length: 40 }, (_, i) => ({
          key: "neg",
          step: s0 + i,
          value: s0 + i === -17 ? "NaN" : wave(2, s0 + i),
        })),
      });
    await settle(pool, id);
    await ingest({
      type: "run.metrics",
      run,
      points: Array.from({ length: 20 }, (_, i) => ({ key: "loss", step: 100 + i, value: -i })),
    });
    await settle(pool, id);
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: 3000, value: 0.25 },
        { key: "loss", step: 3001, value: "NaN" },
        { key: "tiny", step: 5, value: 2 },
      ],
    });
    const count = async (table: string) =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${table}" WHERE "runId" = $1`,
          [id],
        )
      ).rows[0]!.n;
    expect(await count("MetricBlock")).toBeGreaterThan(0);
    expect(await count("MetricRow")).toBeGreaterThan(20);
    expect(await count("MetricPending")).toBe(1);

    for (const [i, request] of REQUESTS.entries()) {
      const expected = await bruteForce(id, request);
      const got = await getRunMetrics(prisma, id, request);
      if (i === 0) expect(await count("MetricPending")).toBe(0); // the read folded them
      expect(firstDifference(got, expected), label(request)).toBe(null);
      expect(stringifyApiJson(got)).toBe(stringifyApiJson(expected));
      // Without a raw pool (the fallback through Prisma), the same answer.
      const fallback = await getRunMetrics(unbound, id, request);
      expect(firstDifference(fallback, expected), label(request)).toBe(null);
    }
    // The spike, the dip and every non-finite point are drawn at the coarsest budget.
    const coarse = await getRunMetrics(prisma, id, { maxPoints: 4 });
    const at = (key: string, step: number | string) =>
      coarse.series.find((s) => s.key === key)!.points.find((p) => p.step === step)?.value;
    expect(at("loss", 1234)).toBe(1e6);
    expect(at("loss", 77)).toBeNaN();
    expect(at("loss", 1500)).toBe(Infinity);
    expect(at("loss", 2999)).toBe(-Infinity);
    expect(at("loss", 3001)).toBeNaN();
    expect(at("big", (big + 150_000n).toString())).toBe(-5);
    expect(at("neg", -17)).toBeNaN();
  });
});
