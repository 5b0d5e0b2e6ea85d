import { afterAll, describe, expect, test } from "vitest";

import { getRunMetrics, settle } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// The traffic of a training fleet (issue 22, scripts/bench/fleet.ts): one small frame per step
// with many keys, several runs in one batch, a resumed attempt re-sending its last steps with
// other values, an out-of-order step and NaN. Points above a key's stored steps are appended
// without ON CONFLICT; everything else merges. What is stored and read must be the latest value
// of every (run, key, step), with step ranges and tiers that agree with the raw points.

const { pool, prisma, ingest, startRun, close } = await ingestHarness("step-frames-host");
afterAll(close);

const KEYS = Array.from({ length: 30 }, (_, i) => `train/k${String(i).padStart(2, "0")}`);
const stepFrame = (run: string, step: number, value: (key: number) => number | string) => ({
  type: "run.metrics",
  run,
  points: KEYS.map((key, k) => ({ key, step, value: value(k) })),
});

describe("step frames of many keys", () => {
  test("appends, a resumed re-send, an out-of-order step and NaN: the latest value of every point, exact ranges and tiers", async () => {
    const a = await startRun("training");
    const b = await startRun("training");
    const expected = new Map<string, number>(); // `${runId}|${key}|${step}` -> value
    const send = async (
      frames: Array<{ id: number; run: string; step: number; value: (k: number) => number }>,
    ) => {
      await ingest(
        ...frames.map((f) =>
          stepFrame(f.run, f.step, (k) => (Number.isNaN(f.value(k)) ? "NaN" : f.value(k))),
        ),
      );
      for (const f of frames)
        KEYS.forEach((key, k) => expected.set(`${f.id}|${key}|${f.step}`, f.value(k)));
    };
    // Steps 0..39 of both runs, both runs in one batch; step 17 of run a is held back (out of order).
    for (let step = 0; step < 40; step++) {
      const frames = [{ id: b.id, run: b.run, step, value: (k: number) => 100 + k + step / 100 }];
      if (step !== 17)
        frames.unshift({
          id: a.id,
          run: a.run,
          step,
          value: (k: number) => (step === 33 && k === 0 ? 1e6 : k + step / 100),
        });
      await send(frames);
    }
    // A resumed attempt of run a re-sends 30..39 with other values (the spike at 33 replaced, one NaN), then goes on to 44.
    for (let step = 30; step < 45; step++)
      await send([
        {
          id: a.id,
          run: a.run,
          step,
          value: (k: number) => (step === 35 && k === 1 ? NaN : -k - step),
        },
      ]);
    // The held-back step arrives last, below the highest stored step.
    await send([{ id: a.id, run: a.run, step: 17, value: (k: number) => 7 * k }]);

    for (const { id } of [a, b]) {
      const raw = (
        await pool.query<{ key: string; step: string; value: number }>(
          `SELECT key, step::text AS step, value FROM "MetricPoint" WHERE "runId" = $1`,
          [id],
        )
      ).rows;
      const want = [...expected].filter(([k]) => k.startsWith(`${id}|`));
      expect(raw).toHaveLength(want.length);
      const got = new Map(raw.map((r) => [`${id}|${r.key}|${r.step}`, r.value]));
      for (const [k, v] of want)
        expect(Object.is(got.get(k), v) || (Number.isNaN(v) && Number.isNaN(got.get(k)!)), k).toBe(
          true,
        );

      await settle(pool, id); // the store's tables hold what the fold moved there
      const series = (
        await pool.query<{ key: string; minStep: string; maxStep: string }>(
          `SELECT key, "minStep"::text AS "minStep", "maxStep"::text AS "maxStep" FROM "MetricSeries" WHERE "runId" = $1 ORDER BY key`,
          [id],
        )
      ).rows;
      expect(series).toEqual(
        KEYS.map((key) => ({ key, minStep: "0", maxStep: id === a.id ? "44" : "39" })),
      );

      // The chart read (tiers, raw points and the non-finite copy) returns exactly the stored points.
      const view = await getRunMetrics(prisma, id, { maxPoints: 1000 });
      expect(view.series.map((s) => s.key)).toEqual(KEYS);
      for (const s of view.series) {
        const points = want
          .filter(([k]) => k.startsWith(`${id}|${s.key}|`))
          .map(([k, v]) => ({ step: Number(k.split("|")[2]), value: v }));
        points.sort((x, y) => x.step - y.step);
        expect(s.total).toBe(points.length);
        expect(s.points.map((p) => [Number(p.step), p.value])).toEqual(
          points.map((p) => [p.step, p.value]),
        );
      }
    }
    // The spike replaced at step 33 is gone from run a's tiers: the highest value left is step 29's.
    const top = (
      await pool.query<{ maxValue: number }>(
        `SELECT max("maxValue") AS "maxValue" FROM "MetricTier" WHERE "runId" = $1 AND key = 'train/k00'`,
        [a.id],
      )
    ).rows[0]!;
    expect(top.maxValue).toBe(0.29);
    const k01 = (
      await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "MetricNonFinite" WHERE "runId" = $1 AND key = 'train/k01' AND step = 35`,
        [a.id],
      )
    ).rows[0]!;
    expect(k01.n).toBe(1);
  });
});
