import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { NotFoundError } from "@/lib/server/errors";
import { ingestHarness } from "@/test/support/ingest";

import { getRunProgress, uploadBucketS } from "./pipelines";

// The pipeline read model over rows written by the real ingest code (applyFrames) into a real
// PostgreSQL, with controlled timestamps: aggregated counters across workers and restarts, the
// windowed rate and ETA, per-worker state, the S3 panel, uploads over time, events and artifacts.

const { prisma, ingestAt, runId, close } = await ingestHarness("pipe-host", { prismaMax: 4 });
afterAll(close);

// A round epoch second (aligned to 1000 s) so time buckets start exactly at T0.
const T0 = 1_790_000_000_000;
const at = (s: number) => T0 + s * 1000;

describe("getRunProgress", () => {
  test("aggregates 4 workers (one restarted, one silent) into exact totals, rate, ETA and per-worker rows", async () => {
    const run = `extract-${randomUUID()}`;
    await ingestAt(at(0), {
      type: "run.start",
      run,
      name: "hidden states",
      kind: "extraction",
      total: 1000,
      unit: "samples",
      stallAfterS: 60,
      config: { s3: { maxInflight: 8 } },
    });
    const push = (
      t: number,
      workerId: string,
      bootId: string,
      done: number,
      uploaded: number,
      extra: Record<string, number> = {},
    ) =>
      ingestAt(at(t), {
        type: "run.progress",
        run,
        workerId,
        bootId,
        ts: at(t),
        done,
        counters: {
          "s3.uploaded": uploaded,
          "s3.bytes": uploaded * 1_000_000,
          "local.deleted": uploaded,
          "s3.inflight": 2,
          "disk.freeBytes": 500e9 - t * 1e9,
          ...extra,
        },
      });
    for (const t of [0, 100, 200]) {
      await push(t, "gpu0", "g0", t / 2, (t / 100) * 40);
      await push(t, "gpu2", "g2", t / 2, (t / 100) * 40);
    }
    // gpu1 restarts at 150 s: its new boot resumes at 60 done, counters restart from 5.
    await push(0, "gpu1", "g1a", 0, 0);
    await push(100, "gpu1", "g1a", 50, 40);
    await push(150, "gpu1", "g1b", 60, 5);
    await push(200, "gpu1", "g1b", 100, 30, { "s3.failed": 2 });
    // gpu3 stops after 100 s: stale at 200 s with a 60 s threshold.
    await push(0, "gpu3", "g3", 0, 0);
    await push(100, "gpu3", "g3", 50, 40, { "disk.freeBytes": 123e9 });

    const id = await runId(run);
    const view = await getRunProgress(prisma, id, new Date(at(200)));

    // done: 100 + 100 + 100 + 50. Rate over the 200 s covered by samples: gpu0 100 + gpu2 100 +
    // gpu1 (50 in boot a + 40 in boot b; the jump to 60 on resume is not counted) + gpu3 50 = 340.
    expect(view.progress).toEqual({
      done: 350,
      total: 1000,
      unit: "samples",
      fraction: 0.35,
      ratePerS: 340 / 200,
      etaS: 650 / (340 / 200),
    });
    expect(view.state).toBe("running");
    // Counters: gpu1 uploaded 40 before its restart and 30 after; gauges: inflight summed, disk the minimum.
    expect(view.counters).toEqual({
      "s3.uploaded": 80 + 80 + 70 + 40,
      "s3.bytes": 270e6,
      "local.deleted": 270,
      "s3.inflight": 8,
      "disk.freeBytes": 123e9,
      "s3.failed": 2,
    });
    expect(view.s3).toEqual({
      uploaded: 270,
      uploadedBytes: 270e6,
      inflight: 8,
      inflightLimit: 8,
      failed: 2,
      localDeleted: 270,
      diskFreeBytes: 123e9,
    });
    expect(
      view.workers.map((w) => [w.workerId, w.bootId, w.restarts, w.done, w.state, w.ratePerS]),
    ).toEqual([
      ["gpu0", "g0", 0, 100, "running", 0.5],
      ["gpu1", "g1b", 1, 100, "running", 90 / 200],
      ["gpu2", "g2", 0, 100, "running", 0.5],
      ["gpu3", "g3", 0, 50, "stale", 50 / 200],
    ]);
    expect(view.workers[3]!.lastPushAt).toBe(new Date(at(100)).toISOString());
    expect(view.activeAlerts).toEqual([]);

    // Uploads over time: 1 s buckets over 200 s; each worker's last value carried forward, and the
    // increase between reports spread over the buckets in between (reports come every 50–100 s).
    expect(view.uploads.bucketS).toBe(1);
    const byT = new Map(view.uploads.buckets.map((b) => [(b.tMs - T0) / 1000, b]));
    expect(view.uploads.buckets).toHaveLength(201);
    expect(byT.get(0)).toEqual({ tMs: T0, uploaded: 0, ratePerS: null, sampled: true });
    expect(byT.get(1)?.ratePerS).toBe(1.6);
    expect(byT.get(100)).toEqual({ tMs: at(100), uploaded: 160, ratePerS: 1.6, sampled: true });
    expect(byT.get(120)).toEqual({ tMs: at(120), uploaded: 160, ratePerS: 0.1, sampled: false });
    expect(byT.get(150)).toEqual({ tMs: at(150), uploaded: 165, ratePerS: 0.1, sampled: true });
    expect(byT.get(200)).toEqual({ tMs: at(200), uploaded: 270, ratePerS: 2.1, sampled: true });
  });

  test("a run that stopped pushing decays its rate, loses its ETA and turns stale; a finished one has neither", async () => {
    const run = `gen-${randomUUID()}`;
    await ingestAt(at(0), {
      type: "run.start",
      run,
      name: "completions",
      kind: "generation",
      total: 100,
      stallAfterS: 30,
    });
    await ingestAt(at(0), {
      type: "run.progress",
      run,
      bootId: "b",
      ts: at(0),
      done: 0,
      total: 100,
      unit: "prompts",
    });
    await ingestAt(at(60), {
      type: "run.progress",
      run,
      bootId: "b",
      ts: at(60),
      done: 60,
      total: 100,
      unit: "prompts",
    });
    const id = await runId(run);

    const fresh = await getRunProgress(prisma, id, new Date(at(60)));
    expect(fresh.progress).toMatchObject({
      done: 60,
      total: 100,
      unit: "prompts",
      ratePerS: 1,
      etaS: 40,
    });
    // At 600 s the 300 s window holds no increase: the only pair (0–60 s) lies wholly before it.
    const later = await getRunProgress(prisma, id, new Date(at(600)));
    expect(later.state).toBe("stale");
    expect(later.progress.ratePerS).toBe(0);
    expect(later.progress.etaS).toBeNull();
    expect(later.workers[0]!.state).toBe("stale");

    await ingestAt(at(700), { type: "run.end", run, status: "succeeded" });
    const ended = await getRunProgress(prisma, id, new Date(at(700)));
    expect(ended.state).toBe("succeeded");
    expect(ended.progress).toMatchObject({ done: 60, ratePerS: null, etaS: null });
    expect(ended.workers[0]!.state).toBe("ended");
  });

  test("shows the deleted-before-upload alert first among events, artifacts newest first, and the pitwall run command", async () => {
    const run = `cmd-${randomUUID()}`;
    await ingestAt(at(0), {
      type: "run.start",
      run,
      name: "extract shard",
      kind: "extraction",
      config: {
        command: ["python", "extract.py", "--shard", "my file.txt"],
        cwd: "/data/work",
        gitCommit: "0123abcd",
      },
    });
    await ingestAt(at(1), { type: "run.event", run, level: "info", message: "started", ts: at(1) });
    await ingestAt(at(2), {
      type: "run.progress",
      run,
      bootId: "b",
      ts: at(2),
      done: 10,
      counters: { "s3.uploaded": 3, "local.deleted": 5 },
    });
    await ingestAt(at(3), {
      type: "run.event",
      run,
      level: "warn",
      message: "slow upload",
      ts: at(3),
    });
    await ingestAt(at(4), {
      type: "run.artifact",
      run,
      kind: "checkpoint",
      uri: "s3://b/ckpt-100",
      sizeBytes: 2_000_000_000,
      step: 100,
      ts: at(4),
    });
    await ingestAt(at(5), {
      type: "run.artifact",
      run,
      kind: "checkpoint",
      uri: "s3://b/ckpt-big",
      step: "9007199254740993",
      ts: at(5),
    });
    await ingestAt(at(6), {
      type: "run.end",
      run,
      status: "failed",
      exitCode: 3,
      outputTail: ["line 1", "Traceback: boom"],
    });
    const view = await getRunProgress(prisma, await runId(run), new Date(at(7)));

    expect(view.activeAlerts).toEqual(["deleted_before_upload"]);
    expect(view.events.map((e) => [e.level, e.code, e.message])).toEqual([
      [
        "error",
        "deleted_before_upload",
        "2 files deleted locally but never uploaded (local.deleted 5 > s3.uploaded 3)",
      ],
      ["warn", null, "slow upload"],
      ["info", null, "started"],
    ]);
    expect(view.artifacts.map((a) => [a.uri, a.step, a.sizeBytes])).toEqual([
      ["s3://b/ckpt-big", "9007199254740993", null],
      ["s3://b/ckpt-100", 100, 2_000_000_000],
    ]);
    expect(view.artifactTotal).toBe(2);
    expect(view.command).toEqual({
      command: "python extract.py --shard 'my file.txt'",
      cwd: "/data/work",
      gitCommit: "0123abcd",
      exitCode: 3,
      outputTail: ["line 1", "Traceback: boom"],
    });
    expect(view.s3?.inflightLimit).toBe(100);
  });

  test("a run without progress has empty figures, and an unknown run is a NotFoundError", async () => {
    const run = `bench-${randomUUID()}`;
    await ingestAt(at(0), { type: "run.start", run, name: "sweep", kind: "benchmark" });
    const view = await getRunProgress(prisma, await runId(run), new Date(at(1)));
    expect(view.progress).toEqual({
      done: null,
      total: null,
      unit: null,
      fraction: null,
      ratePerS: null,
      etaS: null,
    });
    expect(view.workers).toEqual([]);
    expect(view.s3).toBeNull();
    expect(view.uploads.buckets).toEqual([]);
    expect(view.command).toBeNull();
    await expect(getRunProgress(prisma, 987_654_321)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("uploadBucketS", () => {
  test("picks the smallest round width giving at most 300 buckets", () => {
    expect(uploadBucketS(0)).toBe(1);
    expect(uploadBucketS(300)).toBe(1);
    expect(uploadBucketS(301)).toBe(2);
    expect(uploadBucketS(40 * 3600)).toBe(600);
    expect(uploadBucketS(400 * 86_400)).toBe(172_800 * 1);
  });
});
