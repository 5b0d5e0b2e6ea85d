import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { ingestHarness } from "@/test/support/ingest";

import { getCheckpointLineage, listCheckpoints } from "./lineage";

// Checkpoint lineage over data written by the real ingest code: the producing training run, the
// eval runs with τ summed per (run, draft settings), the benchmark runs by config key, and the
// newest-first checkpoint list with its counts.

const { prisma, ingest, startRun, close } = await ingestHarness("lineage-host");
afterAll(close);

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

describe("getCheckpointLineage", () => {
  test("links the producing training run, the eval runs (τ per run and draft settings) and the benchmark runs that served it", async () => {
    const uri = `s3://drafters/dflash-${randomUUID()}/step-4000`;
    const other = `${uri}-other`;
    const train = await startRun("training", "dflash drafter");
    await ingest({
      type: "run.artifact",
      run: train.run,
      kind: "checkpoint",
      uri,
      step: 4000,
      sizeBytes: 3_400_000_000,
      ts: T0,
    });
    // An upload of the same object is not a checkpoint report.
    const upload = await startRun("extraction", "uploader");
    await ingest({ type: "run.artifact", run: upload.run, kind: "upload", uri, ts: T0 });

    const evalA = await startRun("eval", "eval A");
    const r = (
      key: string,
      steps: number,
      accepted: number,
      extra: Record<string, unknown> = {},
    ) => ({
      key,
      checkpoint: { step: 4000, uri },
      promptId: key,
      verifySteps: steps,
      acceptedTokens: accepted,
      ts: T0 + 60_000,
      ...extra,
    });
    // topk 8: (1100 + 200 + 300 + 100) / (200 + 100) = 1700 / 300; topk 1: (90 + 100) / 100 = 1.9.
    await ingest({
      type: "run.eval",
      run: evalA.run,
      results: [
        r("a1", 200, 1100, { dataset: "humaneval", draft: { topk: 8, blockSize: 16 } }),
        r("a2", 100, 300, { dataset: "gsm8k", draft: { blockSize: 16, topk: 8 } }),
        r("a3", 100, 90, { dataset: "gsm8k", draft: { topk: 1, blockSize: 16 } }),
      ],
    });
    const evalB = await startRun("eval", "eval B");
    await ingest({
      type: "run.eval",
      run: evalB.run,
      results: [r("b1", 50, 400), { ...r("b2", 10, 10), checkpoint: { uri: other } }],
    });

    const benchCk = await startRun("benchmark", "served as checkpoint", {
      config: {
        checkpoint: uri,
        model: "Qwen/Qwen3-27B",
        engine: "sglang",
        engineVersion: "0.5.11",
      },
      startedAt: T0 + 1000,
    });
    await ingest({
      type: "run.benchmark",
      run: benchCk.run,
      points: [
        { key: "c1", concurrency: 1, completed: 8, outputTokPerS: 26.5 },
        { key: "c32", concurrency: 32, completed: 0, outputTokPerS: 900 },
        { key: "c16", concurrency: 16, completed: 64, outputTokPerS: "NaN" },
      ],
    });
    const benchModel = await startRun("benchmark", "served as model", {
      config: { model: uri },
      startedAt: T0 + 2000,
    });
    await startRun("benchmark", "other checkpoint", { config: { checkpoint: other } });
    await startRun("benchmark", "nested, not matched", {
      config: { speculative: { checkpoint: uri } },
    });
    await startRun("training", "resumed from it", { config: { checkpoint: uri } });

    const view = await getCheckpointLineage(prisma, uri, new Date(T0 + 10_000));
    expect(view.uri).toBe(uri);
    expect(view.step).toBe(4000);
    expect(view.producedBy).toEqual([
      {
        run: expect.objectContaining({
          id: train.id,
          name: "dflash drafter",
          kind: "training",
          host: "lineage-host",
        }),
        step: 4000,
        sizeBytes: 3_400_000_000,
        ts: new Date(T0).toISOString(),
      },
    ]);

    expect(
      view.scoredBy.map((e) => [e.run.id, e.draft, e.results, e.verifySteps, e.acceptedTokens]),
    ).toEqual([
      [evalB.id, {}, 1, 50, 400],
      [evalA.id, { blockSize: 16, topk: 8 }, 2, 300, 1400],
      [evalA.id, { blockSize: 16, topk: 1 }, 1, 100, 90],
    ]);
    expect(view.scoredBy.map((e) => e.tau)).toEqual([450 / 50, 1700 / 300, 190 / 100]);
    expect(view.scoredBy[1]!.datasets).toEqual(["gsm8k", "humaneval"]);
    // Draft settings come back with sorted keys whatever order jsonb kept them in.
    expect(Object.keys(view.scoredBy[1]!.draft)).toEqual(["blockSize", "topk"]);
    expect(view.scoredBy[1]!.checkpointStep).toBe(4000);
    expect(view.bestTau).toBe(9);

    expect(view.servedBy.map((b) => [b.run.id, b.matchedBy])).toEqual([
      [benchModel.id, "model"],
      [benchCk.id, "checkpoint"],
    ]);
    // Peak skips the failed point (completed 0) and NaN.
    expect(view.servedBy[1]).toMatchObject({
      model: "Qwen/Qwen3-27B",
      engine: "sglang",
      engineVersion: "0.5.11",
      pointCount: 3,
      peakOutputTokPerS: 26.5,
    });
  });

  test("a URI nothing references has empty sections, and a 64-bit step survives", async () => {
    expect(await getCheckpointLineage(prisma, `s3://nowhere/${randomUUID()}`)).toMatchObject({
      step: null,
      label: null,
      producedBy: [],
      scoredBy: [],
      servedBy: [],
      bestTau: null,
    });
    const uri = `file:///ckpt/${randomUUID()}`;
    const train = await startRun("training", "long run");
    await ingest({
      type: "run.artifact",
      run: train.run,
      kind: "checkpoint",
      uri,
      step: "9223372036854775807",
    });
    expect((await getCheckpointLineage(prisma, uri)).step).toBe("9223372036854775807");
  });
});

describe("listCheckpoints", () => {
  test("lists artifact, eval and benchmark-config checkpoints newest first with their counts", async () => {
    const tag = randomUUID();
    const older = `s3://list-${tag}/step-1000`;
    const newer = `s3://list-${tag}/step-2000`;
    const evalOnly = `s3://list-${tag}/eval-only`;
    const benchOnly = `s3://list-${tag}/bench-only`;
    const base = Date.now() + 86_400_000; // after anything the other tests wrote
    const train = await startRun("training", "list trainer");
    await ingest(
      {
        type: "run.artifact",
        run: train.run,
        kind: "checkpoint",
        uri: older,
        step: 1000,
        ts: base,
      },
      {
        type: "run.artifact",
        run: train.run,
        kind: "checkpoint",
        uri: newer,
        step: 2000,
        ts: base + 1000,
      },
    );
    const ev = await startRun("eval", "list eval");
    await ingest({
      type: "run.eval",
      run: ev.run,
      results: [
        {
          key: "n1",
          checkpoint: { uri: newer },
          promptId: "p",
          verifySteps: 10,
          acceptedTokens: 30,
          ts: base + 5000,
        },
        {
          key: "n2",
          checkpoint: { uri: newer },
          promptId: "q",
          verifySteps: 10,
          acceptedTokens: 10,
          draft: { topk: 4 },
          ts: base + 5000,
        },
        {
          key: "e1",
          checkpoint: { step: 1500, uri: evalOnly },
          promptId: "p",
          verifySteps: 4,
          acceptedTokens: 2,
          ts: base + 3000,
        },
      ],
    });
    await startRun("benchmark", "bench only", {
      config: { checkpoint: benchOnly },
      startedAt: base + 4000,
    });
    await startRun("benchmark", "serves newer as modelPath", {
      config: { modelPath: newer },
      startedAt: base + 6000,
    });
    await startRun("benchmark", "model name only", {
      config: { model: `Qwen/${tag}` },
      startedAt: base + 7000,
    });

    const list = await listCheckpoints(prisma, { limit: 4 });
    expect(list.limit).toBe(4);
    expect(list.checkpoints.map((c) => c.uri)).toEqual([benchOnly, evalOnly, newer, older]);
    const byUri = new Map(list.checkpoints.map((c) => [c.uri, c]));
    expect(byUri.get(newer)).toEqual({
      uri: newer,
      step: 2000,
      firstSeenAt: new Date(base + 1000).toISOString(),
      producer: { runId: train.id, runName: "list trainer" },
      producerCount: 1,
      evalRuns: 1,
      evalResults: 2,
      bestTau: 4,
      benchmarkRuns: 1,
    });
    expect(byUri.get(evalOnly)).toMatchObject({
      step: 1500,
      producer: null,
      evalRuns: 1,
      bestTau: 1.5,
      benchmarkRuns: 0,
    });
    expect(byUri.get(benchOnly)).toMatchObject({
      step: null,
      producer: null,
      evalRuns: 0,
      bestTau: null,
      benchmarkRuns: 1,
    });
    expect(byUri.get(older)).toMatchObject({ step: 1000, evalRuns: 0, benchmarkRuns: 0 });
  });
});
