import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { NotFoundError } from "@/lib/server/errors";
import { ingestHarness } from "@/test/support/ingest";

import { createBaseline } from "./baselines";
import { getEvalOverview, getRunEvals } from "./evals";

/** Epoch ms the result times below are offsets from (protocol times fall in 2000..2100). */
const T0 = 1_788_000_000_000;

// Eval reads over results written by the real ingest code. Every expected τ below is computed by
// hand from the raw counts pushed: τ = (Σ accepted + Σ verify steps) / Σ verify steps.

const { prisma, ingest, startRun, close } = await ingestHarness("eval-host");
afterAll(close);

interface R {
  checkpoint: Record<string, unknown>;
  promptId: string;
  verifySteps: number;
  acceptedTokens: number;
  category?: string;
  dataset?: string;
  draft?: Record<string, unknown>;
  outputTokPerS?: number;
  ts?: number;
}

async function pushEval(run: string, results: R[]) {
  await ingest({
    type: "run.eval",
    run,
    results: results.map((r) => ({ key: randomUUID(), ...r })),
  });
}

describe("getRunEvals", () => {
  test("τ per checkpoint and category is Σ tokens / Σ steps; checkpoints ordered by 64-bit step, then label; one draft setting at a time", async () => {
    const { run, id } = await startRun("training");
    const d16 = { block_size: 16, tree: "ddtree-8" };
    // Step 2000 first (out of order on purpose).
    await pushEval(run, [
      {
        checkpoint: { step: 2000, uri: "s3://d/step-2000" },
        promptId: "p1",
        category: "code",
        verifySteps: 100,
        acceptedTokens: 900,
        draft: d16,
        outputTokPerS: 100,
        ts: T0 + 3000,
      },
      {
        checkpoint: { step: 2000 },
        promptId: "p2",
        category: "code",
        verifySteps: 300,
        acceptedTokens: 3300,
        draft: d16,
        outputTokPerS: 200,
        ts: T0 + 3001,
      },
      {
        checkpoint: { step: 2000 },
        promptId: "p3",
        category: "math",
        dataset: "gsm8k",
        verifySteps: 50,
        acceptedTokens: 200,
        draft: d16,
        ts: T0 + 3002,
      },
    ]);
    await pushEval(run, [
      {
        checkpoint: { step: 1000 },
        promptId: "p1",
        category: "code",
        verifySteps: 200,
        acceptedTokens: 1000,
        draft: d16,
        ts: T0 + 2000,
      },
      {
        checkpoint: { step: 1000 },
        promptId: "p3",
        category: "math",
        verifySteps: 100,
        acceptedTokens: 100,
        draft: d16,
        ts: T0 + 2001,
      },
      // Beyond 2^53: ordered exactly, kept as a string.
      {
        checkpoint: { step: "9007199254740993", label: "final" },
        promptId: "p1",
        category: "code",
        verifySteps: 10,
        acceptedTokens: 140,
        draft: { tree: "ddtree-8", block_size: 16 },
        ts: T0 + 4000,
      },
      // No step: after every stepped checkpoint, by label.
      {
        checkpoint: { label: "zz-export" },
        promptId: "p1",
        category: "code",
        verifySteps: 4,
        acceptedTokens: 4,
        draft: d16,
        ts: T0 + 1000,
      },
      {
        checkpoint: { label: "hf-export" },
        promptId: "p1",
        category: "code",
        verifySteps: 4,
        acceptedTokens: 8,
        draft: d16,
        ts: T0 + 1001,
      },
      // Another draft setting (fewer verify steps in all): not mixed into the τ above.
      {
        checkpoint: { step: 1000 },
        promptId: "p1",
        category: "code",
        verifySteps: 100,
        acceptedTokens: 0,
        draft: { block_size: 8 },
        ts: T0 + 2002,
      },
    ]);

    const view = await getRunEvals(prisma, id);
    expect(view.resultCount).toBe(9);
    const d16Key = JSON.stringify([
      ["block_size", 16],
      ["tree", "ddtree-8"],
    ]);
    const d8Key = JSON.stringify([["block_size", 8]]);
    // 100+300+50+200+100+10+4+4 = 768 verify steps vs 100.
    expect(view.draftSettings).toEqual([
      { key: d16Key, settings: d16, results: 8, verifySteps: 768 },
      { key: d8Key, settings: { block_size: 8 }, results: 1, verifySteps: 100 },
    ]);
    expect(view.draft).toBe(d16Key);
    expect(view.checkpoints.map((c) => [c.key, c.step, c.label])).toEqual([
      ["step:1000", "1000", null],
      ["step:2000", "2000", null],
      ["step:9007199254740993", "9007199254740993", "final"],
      ["label:hf-export", null, "hf-export"],
      ["label:zz-export", null, "zz-export"],
    ]);

    const [c1000, c2000, cBig, cHf] = view.checkpoints;
    // 1000: (1000 + 200 + 100 + 100) / 300 = 1400 / 300.
    expect(c1000).toMatchObject({
      verifySteps: 300,
      acceptedTokens: 1100,
      tokensProduced: 1400,
      results: 2,
      prompts: 2,
    });
    expect(c1000!.tau).toBeCloseTo(1400 / 300, 12);
    // 2000: (900 + 3300 + 200 + 450) / 450 = 4850 / 450 = 10.78; the mean of per-prompt τ (10, 12, 5) would be 9.
    expect(c2000).toMatchObject({
      verifySteps: 450,
      acceptedTokens: 4400,
      tokensProduced: 4850,
      results: 3,
      prompts: 3,
      uri: "s3://d/step-2000",
      meanOutputTokPerS: 150,
    });
    expect(c2000!.tau).toBeCloseTo(4850 / 450, 12);
    expect(c2000!.firstAt).toBe(new Date(T0 + 3000).toISOString());
    // code: (900 + 3300 + 400) / 400 = 11.5; math: (200 + 50) / 50 = 5.
    expect(c2000!.categories).toEqual([
      {
        category: "code",
        tau: 11.5,
        verifySteps: 400,
        acceptedTokens: 4200,
        tokensProduced: 4600,
        results: 2,
        prompts: 2,
        meanOutputTokPerS: 150,
      },
      {
        category: "math",
        tau: 5,
        verifySteps: 50,
        acceptedTokens: 200,
        tokensProduced: 250,
        results: 1,
        prompts: 1,
        meanOutputTokPerS: null,
      },
    ]);
    // Per-prompt τ 5, 10, 12: bins of 0.5 from 5 to 12.5.
    const dist = c2000!.distribution!;
    expect(dist).toMatchObject({
      count: 3,
      min: 5,
      max: 12,
      meanOfPrompts: 9,
      p50: 10,
      binWidth: 0.5,
    });
    expect(dist.bins).toHaveLength(15);
    expect(dist.bins[0]).toEqual({ lo: 5, hi: 5.5, count: 1 });
    expect(dist.bins[10]).toEqual({ lo: 10, hi: 10.5, count: 1 });
    expect(dist.bins[14]).toEqual({ lo: 12, hi: 12.5, count: 1 });
    expect(cBig!.tau).toBe(15);
    expect(cHf!.tau).toBe(3);

    // Table: each checkpoint's total, then its categories.
    expect(
      view.rows
        .filter((r) => r.checkpointKey === "step:2000")
        .map((r) => [r.total, r.category, r.tau]),
    ).toEqual([
      [true, null, 4850 / 450],
      [false, "code", 11.5],
      [false, "math", 5],
    ]);
    expect(view.categories).toEqual(["code", "math"]);
    expect(view.datasets).toEqual(["gsm8k"]);

    // The other draft setting on request: (0 + 100) / 100 = 1.
    const other = await getRunEvals(prisma, id, { draft: d8Key });
    expect(other.draft).toBe(d8Key);
    expect(other.checkpoints.map((c) => [c.key, c.tau])).toEqual([["step:1000", 1]]);
    // An unknown key falls back to the default here (the HTTP route answers 400 for it).
    expect((await getRunEvals(prisma, id, { draft: "nope" })).draft).toBe(d16Key);
    // Latest is the highest step (2^53 + 1), not the last in order (the label-only "zz-export").
    expect(view.latestKey).toBe("step:9007199254740993");
  });

  test("latest checkpoint: the highest step, even when a step-less or URI-only checkpoint sorts last; without steps the most recently scored", async () => {
    const stepped = await startRun("eval");
    await pushEval(stepped.run, [
      {
        checkpoint: { step: 300 },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 1000,
      },
      {
        checkpoint: { step: 100 },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 5000,
      },
      {
        checkpoint: { label: "hf-export" },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 9000,
      },
      { checkpoint: {}, promptId: "p", verifySteps: 10, acceptedTokens: 10, ts: T0 + 9500 },
    ]);
    const v = await getRunEvals(prisma, stepped.id);
    expect(v.checkpoints.map((c) => c.key)).toEqual([
      "step:100",
      "step:300",
      "label:hf-export",
      "none",
    ]);
    expect(v.latestKey).toBe("step:300");

    const unstepped = await startRun("eval");
    await pushEval(unstepped.run, [
      {
        checkpoint: { label: "b-later" },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 1000,
      },
      {
        checkpoint: { label: "a-newest" },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 2000,
      },
      {
        checkpoint: { label: "a-newest" },
        promptId: "q",
        verifySteps: 10,
        acceptedTokens: 10,
        ts: T0 + 7000,
      },
      {
        checkpoint: { label: "c-mid" },
        promptId: "p",
        verifySteps: 10,
        acceptedTokens: 30,
        ts: T0 + 6000,
      },
    ]);
    const u = await getRunEvals(prisma, unstepped.id);
    expect(u.checkpoints.map((c) => [c.key, c.lastAt])).toEqual([
      ["label:a-newest", new Date(T0 + 7000).toISOString()],
      ["label:b-later", new Date(T0 + 1000).toISOString()],
      ["label:c-mid", new Date(T0 + 6000).toISOString()],
    ]);
    expect(u.latestKey).toBe("label:a-newest");

    // The overview uses the same rule for its latest point and latestCategories.
    const overview = await getEvalOverview(prisma);
    const line = overview.lines.find((l) => l.run.id === stepped.id)!;
    expect(line.latestKey).toBe("step:300");
    expect(line.latestCategories.map((c) => c.verifySteps)).toEqual([10]);
    expect(overview.lines.find((l) => l.run.id === unstepped.id)!.latestKey).toBe("label:a-newest");
  });

  test("a run without results is empty; τ baselines are listed; an unknown run is NotFound", async () => {
    const { id } = await startRun("eval");
    const name = `ref-${randomUUID()}`;
    const created = await createBaseline(prisma, {
      name,
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
    });
    expect(created.ok).toBe(true);
    await createBaseline(prisma, {
      name: `tps-${randomUUID()}`,
      metric: "outputTokPerS",
      value: 577.8,
    });
    const view = await getRunEvals(prisma, id);
    expect(view).toMatchObject({
      runId: id,
      resultCount: 0,
      draft: null,
      checkpoints: [],
      rows: [],
      draftSettings: [],
    });
    expect(view.baselines.every((b) => b.metric === "tau")).toBe(true);
    expect(view.baselines.find((b) => b.name === name)).toMatchObject({
      value: 12.4,
      tolerance: 0.3,
      dataset: null,
      sourceUrl: null,
      settings: {},
    });
    await expect(getRunEvals(prisma, 2_000_000_000)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("getRunEvals of a training run", () => {
  test("includes the results eval runs pushed for its checkpoints (by artifact URI) and names those runs", async () => {
    const training = await startRun("training", "drafter run 9");
    const evalRun = await startRun("eval", "τ eval of run 9");
    const uri = `s3://d/run9-${randomUUID()}/step-500`;
    await ingest({ type: "run.artifact", run: training.run, kind: "checkpoint", uri, step: 500 });
    // Scored by URI only: the step comes from the training run's artifact.
    await pushEval(evalRun.run, [
      {
        checkpoint: { uri },
        promptId: "a",
        category: "code",
        verifySteps: 100,
        acceptedTokens: 1100,
      },
      {
        checkpoint: { uri },
        promptId: "b",
        category: "chat",
        verifySteps: 100,
        acceptedTokens: 500,
      },
    ]);
    // Another URI the training run never saved stays off its page.
    await pushEval(evalRun.run, [
      { checkpoint: { uri: `${uri}-other` }, promptId: "a", verifySteps: 10, acceptedTokens: 10 },
    ]);

    const view = await getRunEvals(prisma, training.id);
    expect(view.resultCount).toBe(2);
    expect(view.scoredBy).toEqual([{ id: evalRun.id, name: "τ eval of run 9", kind: "eval" }]);
    expect(view.checkpoints).toHaveLength(1);
    // (1100 + 500 + 2 × 100) / 200 = 9
    expect(view.checkpoints[0]).toMatchObject({ step: "500", uri, tau: 9, verifySteps: 200 });
    // The eval run's own page keeps all three results and names no other run.
    const own = await getRunEvals(prisma, evalRun.id);
    expect(own.resultCount).toBe(3);
    expect(own.scoredBy).toEqual([]);
  });
});

describe("getEvalOverview", () => {
  test("one line per training run: checkpoints matched by artifact URI join their training run; otherwise the run holding the results", async () => {
    const cat = `code-${randomUUID()}`;
    const trainer = await startRun("training", "dflash trainer");
    const selfScoring = await startRun("training", "self-scoring trainer");
    const evalA = await startRun("eval", "eval A");
    const evalB = await startRun("eval", "eval B");
    const orphan = await startRun("eval", "orphan eval");
    const uri100 = `s3://drafters/${trainer.run}/step-100`;
    const uri200 = `s3://drafters/${trainer.run}/step-200`;
    await ingest(
      { type: "run.artifact", run: trainer.run, kind: "checkpoint", uri: uri100, step: 100 },
      { type: "run.artifact", run: trainer.run, kind: "checkpoint", uri: uri200, step: 200 },
      // The eval run also records the checkpoint it pulled: the training run still wins.
      { type: "run.artifact", run: evalA.run, kind: "checkpoint", uri: uri200 },
    );
    // Eval A scores both checkpoints by URI only (the step comes from the artifact).
    await pushEval(evalA.run, [
      {
        checkpoint: { uri: uri100 },
        promptId: "a",
        category: cat,
        dataset: "humaneval",
        verifySteps: 100,
        acceptedTokens: 900,
      },
      {
        checkpoint: { uri: uri100 },
        promptId: "b",
        category: cat,
        dataset: "mbpp",
        verifySteps: 300,
        acceptedTokens: 3300,
      },
      {
        checkpoint: { uri: uri200 },
        promptId: "a",
        category: cat,
        dataset: "humaneval",
        verifySteps: 100,
        acceptedTokens: 1300,
      },
      {
        checkpoint: { uri: uri200 },
        promptId: "x",
        category: `${cat}-other`,
        dataset: "humaneval",
        verifySteps: 10,
        acceptedTokens: 0,
      },
    ]);
    // Eval B scores step 200 too, with another draft setting: a line of its own, never summed.
    await pushEval(evalB.run, [
      {
        checkpoint: { uri: uri200, step: 200 },
        promptId: "b",
        category: cat,
        dataset: "mbpp",
        verifySteps: 400,
        acceptedTokens: 4600,
        draft: { block_size: 8 },
      },
    ]);
    await pushEval(selfScoring.run, [
      {
        checkpoint: { step: 10 },
        promptId: "a",
        category: cat,
        verifySteps: 50,
        acceptedTokens: 50,
      },
      { checkpoint: { step: 5 }, promptId: "a", category: cat, verifySteps: 50, acceptedTokens: 0 },
    ]);
    await pushEval(orphan.run, [
      {
        checkpoint: { uri: "s3://elsewhere/ckpt" },
        promptId: "a",
        category: cat,
        verifySteps: 20,
        acceptedTokens: 30,
      },
    ]);

    const view = await getEvalOverview(prisma, { category: cat });
    expect(view.filters).toEqual({ category: cat, dataset: null });
    expect(view.categories).toEqual(expect.arrayContaining([cat, `${cat}-other`]));
    expect(view.datasets).toEqual(expect.arrayContaining(["humaneval", "mbpp"]));
    const ours = new Set([trainer.id, selfScoring.id, evalA.id, evalB.id, orphan.id]);
    const lines = view.lines.filter((l) => ours.has(l.run.id));
    // The eval runs that scored the trainer's checkpoints have no line of their own; the trainer
    // has one line per draft settings (eval A: none; eval B: block_size 8).
    expect(lines.map((l) => l.run.name).sort()).toEqual([
      "dflash trainer",
      "dflash trainer",
      "orphan eval",
      "self-scoring trainer",
    ]);

    const d8Key = JSON.stringify([["block_size", 8]]);
    const [t, t8] = lines.filter((l) => l.run.id === trainer.id);
    // Most verify steps first (eval A: 500 in this category vs eval B: 400), as the run page's default.
    expect([t!.key, t!.draft, t!.splitByDraft]).toEqual([
      `${trainer.id}:none`,
      { key: "none", settings: {} },
      true,
    ]);
    expect([t8!.key, t8!.draft, t8!.splitByDraft]).toEqual([
      `${trainer.id}:${d8Key}`,
      { key: d8Key, settings: { block_size: 8 } },
      true,
    ]);
    expect(t!.attributedBy).toBe("artifact");
    expect(t!.evalRuns.map((r) => r.id)).toEqual([evalA.id]);
    expect(t!.datasets).toEqual(["humaneval", "mbpp"]);
    expect(t!.points.map((p) => [p.key, p.step, p.uri, p.evalRunIds])).toEqual([
      ["step:100", "100", uri100, [evalA.id]],
      ["step:200", "200", uri200, [evalA.id]],
    ]);
    // step 100: (900 + 3300 + 400) / 400 = 11.5 — the other category's result is filtered out.
    expect(t!.points[0]).toMatchObject({
      tau: 11.5,
      verifySteps: 400,
      acceptedTokens: 4200,
      results: 2,
    });
    // step 200, eval A only: (1300 + 100) / 100 = 14 — eval B's other draft setting is not summed in.
    expect(t!.points[1]).toMatchObject({
      tau: 14,
      verifySteps: 100,
      acceptedTokens: 1300,
      tokensProduced: 1400,
      results: 1,
    });
    expect(t!.latestKey).toBe("step:200");
    expect(t!.latestCategories).toEqual([
      {
        category: cat,
        tau: 14,
        verifySteps: 100,
        acceptedTokens: 1300,
        tokensProduced: 1400,
        results: 1,
        prompts: 1,
        meanOutputTokPerS: null,
      },
    ]);
    // Eval B's line: step 200 alone, (4600 + 400) / 400 = 12.5.
    expect(t8!.evalRuns.map((r) => r.id)).toEqual([evalB.id]);
    expect(t8!.points.map((p) => [p.key, p.tau, p.evalRunIds])).toEqual([
      ["step:200", 12.5, [evalB.id]],
    ]);
    // Each line agrees with the run page showing that draft setting.
    const page8 = await getRunEvals(prisma, trainer.id, { draft: d8Key });
    expect(page8.checkpoints.map((c) => [c.key, c.tau])).toEqual([["step:200", 12.5]]);

    const s = lines.find((l) => l.run.id === selfScoring.id)!;
    // One draft setting: one line, keyed by the run id.
    expect([s.key, s.splitByDraft]).toEqual([String(selfScoring.id), false]);
    expect(s.attributedBy).toBe("results");
    expect(s.points.map((p) => [p.step, p.tau])).toEqual([
      ["5", 1],
      ["10", 2],
    ]);
    // The eval run's own page: steps from the trainer's artifacts; an unknown URI keeps no step.
    expect(
      (await getRunEvals(prisma, evalA.id)).checkpoints.map((c) => [c.key, c.step, c.uri]),
    ).toEqual([
      ["step:100", "100", uri100],
      ["step:200", "200", uri200],
    ]);
    expect((await getRunEvals(prisma, orphan.id)).checkpoints.map((c) => [c.key, c.step])).toEqual([
      ["uri:s3://elsewhere/ckpt", null],
    ]);
    const o = lines.find((l) => l.run.id === orphan.id)!;
    expect(o).toMatchObject({
      attributedBy: "results",
      points: [{ key: "uri:s3://elsewhere/ckpt", step: null, tau: 2.5 }],
    });

    // Without the category filter, step 200 (eval A) also holds the other category's 10 steps: (1300 + 100 + 10) / 110.
    const all = await getEvalOverview(prisma);
    const tAll = all.lines.find((l) => l.key === `${trainer.id}:none`)!;
    expect(tAll.points[1]!.tau).toBeCloseTo(1410 / 110, 12);
    expect(tAll.latestCategories.map((c) => [c.category, c.tau])).toEqual([
      [cat, 14],
      [`${cat}-other`, 1],
    ]);

    // Dataset filter: humaneval only → step 100: (900 + 100) / 100 = 10; step 200: (1300 + 100) / 100 = 14.
    const he = await getEvalOverview(prisma, { category: cat, dataset: "humaneval" });
    const tHe = he.lines.filter((l) => l.run.id === trainer.id);
    expect(tHe).toHaveLength(1);
    expect(tHe[0]).toMatchObject({
      key: String(trainer.id),
      splitByDraft: false,
      datasets: ["humaneval"],
    });
    expect(tHe[0]!.points.map((p) => [p.step, p.tau])).toEqual([
      ["100", 10],
      ["200", 14],
    ]);
    expect(tHe[0]!.evalRuns.map((r) => r.id)).toEqual([evalA.id]);
    expect(he.lines.some((l) => l.run.id === selfScoring.id)).toBe(false);
  });

  test("τ baselines only; with a dataset filter those of that dataset or of none", async () => {
    const ds = `humaneval-${randomUUID()}`;
    const general = `general-${randomUUID()}`;
    const specific = `specific-${randomUUID()}`;
    const otherDs = `other-${randomUUID()}`;
    await createBaseline(prisma, { name: general, metric: "tau", value: 12.4 });
    await createBaseline(prisma, {
      name: specific,
      metric: "tau",
      value: 6.2,
      dataset: ds,
      settings: { tree: "ddtree-8" },
      sourceUrl: "https://example.com/paper",
    });
    await createBaseline(prisma, { name: otherDs, metric: "tau", value: 3, dataset: `x-${ds}` });
    const names = (v: { baselines: Array<{ name: string }> }) =>
      v.baselines.map((b) => b.name).filter((n) => [general, specific, otherDs].includes(n));
    expect(names(await getEvalOverview(prisma)).sort()).toEqual(
      [general, otherDs, specific].sort(),
    );
    const filtered = await getEvalOverview(prisma, { dataset: ds });
    expect(names(filtered).sort()).toEqual([general, specific].sort());
    expect(filtered.baselines.find((b) => b.name === specific)).toMatchObject({
      dataset: ds,
      settings: { tree: "ddtree-8" },
      sourceUrl: "https://example.com/paper",
    });
  });
});
