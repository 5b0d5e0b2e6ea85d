import { afterAll, expect, test } from "vitest";

import { extendRunMetrics, getRunMetrics } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// The live re-read of a run's chart series (extendRunMetrics) against the full read, over points
// written by the real ingest code: appended steps come as they are (raw, NaN kept), keys that got
// nothing keep their series object, and whatever only a full read answers exactly gives null.

const { prisma, ingest, startRun, close } = await ingestHarness("live-tail-host");
afterAll(close);

test("a run's series gain the points appended since the last read, raw; untouched keys keep their object", async () => {
  const { run, id } = await startRun("training", "drafter");
  const history = Array.from({ length: 3000 }, (_, step) => ({
    key: "loss",
    step,
    value: 2 - step / 3000 + 0.01 * Math.sin(step),
  }));
  await ingest({ type: "run.metrics", run, points: history });
  await ingest({
    type: "run.metrics",
    run,
    points: [
      ...[0, 100, 200].map((step) => ({ key: "lr", step, value: 1e-4 })),
      { key: "flat", step: 0, value: 1 },
    ],
  });
  const prev = await getRunMetrics(prisma, id);
  const [flat, loss, lr] = prev.series;
  expect(loss!.shown).toBeLessThan(loss!.total); // downsampled: the long-run case

  // Nothing new: the same answer back.
  expect(await extendRunMetrics(prisma, prev)).toBe(prev);

  // Ten new loss steps (a spike and a NaN among them) and one lr step, one small frame each.
  const tail = Array.from({ length: 10 }, (_, i) => ({
    key: "loss",
    step: 3000 + i,
    value: i === 4 ? 50 : i === 7 ? "NaN" : 1 - i / 100,
  }));
  for (const p of tail) await ingest({ type: "run.metrics", run, points: [p] });
  await ingest({ type: "run.metrics", run, points: [{ key: "lr", step: 300, value: 5e-5 }] });

  const next = (await extendRunMetrics(prisma, prev))!;
  expect(next.series.map((s) => s.key)).toEqual(["flat", "loss", "lr"]);
  expect(next.series[0]).toBe(flat);
  expect(next.series[1]!.points).toEqual([
    ...loss!.points,
    ...tail.map((p) => ({ step: p.step, value: Number(p.value) })),
  ]);
  expect(next.series[1]!.total).toBe(3010);
  expect(next.series[1]!.shown).toBe(loss!.points.length + 10);
  // A series small enough to be shown whole stays equal to the full read.
  const full = await getRunMetrics(prisma, id);
  expect(next.series[2]).toEqual(full.series[2]);
  expect(lr!.points).toHaveLength(3);
  // The earlier answer was not touched.
  expect(prev.series[1]!.points).toHaveLength(loss!.points.length);

  // Again from the extended answer: one more step.
  await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 3010, value: 0.5 }] });
  const again = (await extendRunMetrics(prisma, next))!;
  expect(again.series[1]!.points.at(-1)).toEqual({ step: 3010, value: 0.5 });
  expect(again.series[2]).toBe(next.series[2]);
});

test("a late step below what the chart shows, a new key or a series past its budget need a full read (null)", async () => {
  const { run, id } = await startRun("training", "drafter");
  const points = Array.from({ length: 2000 }, (_, step) => ({ key: "loss", step, value: step }));
  await ingest({ type: "run.metrics", run, points });
  await ingest({
    type: "run.metrics",
    run,
    points: [0, 100, 200].map((step) => ({ key: "lr", step, value: 1e-4 })),
  });
  const prev = await getRunMetrics(prisma, id);

  // lr at step 150: stored below lr's last shown step (200), so the tail does not hold it.
  await ingest({ type: "run.metrics", run, points: [{ key: "lr", step: 150, value: 2e-4 }] });
  expect(await extendRunMetrics(prisma, prev)).toBeNull();

  const afterLate = await getRunMetrics(prisma, id);
  await ingest({ type: "run.metrics", run, points: [{ key: "grad_norm", step: 2000, value: 1 }] });
  expect(await extendRunMetrics(prisma, afterLate)).toBeNull();

  // Loss steps up to the budget and a quarter (1,250 points shown) are appended; one more is not.
  const withKey = await getRunMetrics(prisma, id);
  const room = 1250 - withKey.series.find((s) => s.key === "loss")!.shown;
  const more = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({ key: "loss", step: from + i, value: 1 }));
  await ingest({ type: "run.metrics", run, points: more(room, 2000) });
  const full = (await extendRunMetrics(prisma, withKey))!;
  expect(full.series.find((s) => s.key === "loss")!.shown).toBe(1250);
  await ingest({ type: "run.metrics", run, points: more(1, 2000 + room) });
  expect(await extendRunMetrics(prisma, full)).toBeNull();
});
