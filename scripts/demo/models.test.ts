import { expect, test } from "vitest";

import { learningRate, SWEEP_CONCURRENCY, sweepPoint, trainingLoss } from "./curves";
import { expectedTau, REFERENCE, RUN6, RUN7 } from "./evals";
import { ExtractionModel } from "./extraction-model";
import { seededRng } from "./rng";

// The demo's simulations are pure functions of simulated time: these tests run hours of
// simulated work in milliseconds and check the invariants the dashboard relies on.

function model(seed = 1) {
  let boots = 0;
  return new ExtractionModel({
    workers: ["gpu0", "gpu1", "gpu2", "gpu3"],
    totalSamples: 914_000,
    samplesPerS: 2,
    sampleBytes: 1_100_000,
    maxInflight: 100,
    diskTotalBytes: 3_840_000_000_000,
    diskFreeBytes: 64_000_000_000,
    uploadPeriodS: 7200,
    shardSamples: 2500,
    rng: seededRng(seed),
    newBootId: () => `boot-${++boots}`,
  });
}

test("extraction: uploads stay within 100 in flight, nothing is deleted before its upload, the disk fills and recovers", () => {
  const m = model();
  let minFree = Infinity;
  let recoveredAfterMin = false;
  let maxInflight = 0;
  let failed = 0;
  let shards = 0;
  for (let minute = 0; minute < 240; minute++) {
    for (const h of m.advance(60)) {
      if (h.type === "upload-failed") failed++;
      else shards++;
    }
    maxInflight = Math.max(maxInflight, m.inflight);
    if (m.diskFreeBytes < minFree) {
      minFree = m.diskFreeBytes;
      recoveredAfterMin = false;
    }
    if (m.localFiles < 2000) recoveredAfterMin = true;
    for (const r of m.readings()) {
      expect(r.counters["local.deleted"]).toBeLessThanOrEqual(r.counters["s3.uploaded"]!);
      expect(r.counters["s3.inflight"]).toBeLessThanOrEqual(100);
    }
  }
  expect(maxInflight).toBe(100);
  // Slow S3 phases leave gigabytes waiting on disk; the fast phases drain them again.
  expect(64_000_000_000 - minFree).toBeGreaterThan(5e9);
  expect(recoveredAfterMin).toBe(true);
  expect(failed).toBeGreaterThan(0);
  expect(failed).toBeLessThan(100);
  expect(shards).toBeGreaterThan(10);
  // Four hours at 8 samples/s.
  expect(m.done).toBeGreaterThan(100_000);
  expect(m.done).toBeLessThan(130_000);
});

test("extraction: a crashed worker resumes under a new boot, counters from 0, done jumped ahead, and the run still finishes", () => {
  const m = model(7);
  m.advance(1200);
  const before = m.worker("gpu2");
  const { bootId, done } = before;
  const onDiskBefore = before.queued + before.inflight + before.toDelete;
  m.crash("gpu2");
  expect(m.readings().map((r) => r.workerId)).toEqual(["gpu0", "gpu1", "gpu3"]);
  m.advance(480);
  expect(m.worker("gpu2").done).toBe(done);
  m.resume("gpu2", 1536);
  const after = m.readings().find((r) => r.workerId === "gpu2")!;
  expect(after.bootId).not.toBe(bootId);
  expect(after.done).toBe(done + 1536);
  expect(after.counters["s3.uploaded"]).toBe(0);
  expect(after.counters["local.deleted"]).toBe(0);
  // Its files (left over and found) are still on disk, waiting for the new boot's uploads.
  expect(m.worker("gpu2").queued).toBe(onDiskBefore + 1536);

  for (let i = 0; i < 200 && !m.finished; i++) m.advance(3600);
  expect(m.finished).toBe(true);
  expect(m.done).toBe(914_000);
  expect(m.diskFreeBytes).toBe(64_000_000_000);
});

test("training curves: lr warms up then decays by cosine; loss falls", () => {
  const s = { totalSteps: 24_000, warmupSteps: 400, peakLr: 3e-4, minLr: 3e-5 };
  expect(learningRate(0, s)).toBeCloseTo(3e-4 / 400);
  expect(learningRate(399, s)).toBeCloseTo(3e-4);
  expect(learningRate(12_200, s)).toBeCloseTo((3e-4 + 3e-5) / 2);
  expect(learningRate(24_000, s)).toBeCloseTo(3e-5);
  const rng = seededRng(3);
  expect(trainingLoss(10, rng)).toBeGreaterThan(3);
  expect(trainingLoss(20_000, rng)).toBeLessThan(0.8);
});

test("benchmark sweep: 26.5 tok/s at C=1, a 577.8 tok/s peak at C=32 that holds, TTFT growing with concurrency", () => {
  const rng = seededRng(5);
  const points = SWEEP_CONCURRENCY.map((c, i) => sweepPoint(c, i, 1, rng));
  expect(points[0]!.outputTokPerS).toBe(26.5);
  expect(points[0]!.tpotMsMedian).toBeCloseTo(37.7, 0);
  const tokPerS = points.map((p) => p.outputTokPerS as number);
  expect(Math.max(...tokPerS)).toBe(577.8);
  expect(tokPerS.indexOf(577.8)).toBe(SWEEP_CONCURRENCY.indexOf(32));
  expect(tokPerS.slice(5).every((v) => v > 570)).toBe(true);
  const ttft = points.map((p) => p.ttftMsMedian as number);
  expect(ttft[7]!).toBeGreaterThan(ttft[0]! * 50);
  expect(points.every((p) => (p.completed as number) > 0)).toBe(true);
});

test("drafter evals: run 7's coding τ crosses the 12.4 reference mid-run, run 6 plateaus below it", () => {
  const crossing = [...Array(24).keys()]
    .map((i) => (i + 1) * 1_000)
    .find((step) => expectedTau(RUN7, "coding", step) >= REFERENCE.value);
  expect(crossing).toBeGreaterThan(1_200);
  expect(crossing).toBeLessThan(24_000);
  expect(expectedTau(RUN6, "coding", 24_000)).toBeLessThan(REFERENCE.value - REFERENCE.tolerance);
  for (const c of ["coding", "math", "chat"] as const)
    expect(expectedTau(RUN7, c, 1_200)).toBeLessThan(expectedTau(RUN7, c, 12_000));
});
