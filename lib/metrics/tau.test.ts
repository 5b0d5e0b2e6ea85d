import { describe, expect, test } from "vitest";

import {
  aggregateTau,
  checkpointKey,
  checkpointTau,
  draftSettingsKey,
  fromAcceptLength,
  fromSpecVerifyCount,
  fromVllmCounters,
  groupTau,
  perPromptTau,
  quantileSorted,
  reportedTauMetricKey,
  tauByCategory,
  tauOf,
  tokensProduced,
} from "./tau";

describe("tauOf", () => {
  test("tokens produced per verify step, bonus token included", () => {
    // 10 steps, 25 accepted drafts → 35 tokens / 10 steps
    expect(tauOf({ verifySteps: 10, acceptedTokens: 25 })).toBe(3.5);
    expect(tokensProduced({ verifySteps: 10, acceptedTokens: 25 })).toBe(35);
    // nothing accepted: the target's own token each step
    expect(tauOf({ verifySteps: 7, acceptedTokens: 0 })).toBe(1);
    // DFlash block 16 always fully accepted: 16 drafts + 1 bonus
    expect(tauOf({ verifySteps: 4, acceptedTokens: 64 })).toBe(17);
  });

  test("invalid counts throw RangeError", () => {
    expect(() => tauOf({ verifySteps: 0, acceptedTokens: 0 })).toThrow(RangeError);
    expect(() => tauOf({ verifySteps: -1, acceptedTokens: 0 })).toThrow(RangeError);
    expect(() => tauOf({ verifySteps: Number.NaN, acceptedTokens: 1 })).toThrow(RangeError);
    expect(() => tauOf({ verifySteps: 1, acceptedTokens: -1 })).toThrow(RangeError);
    expect(() => tauOf({ verifySteps: 1, acceptedTokens: Number.POSITIVE_INFINITY })).toThrow(
      RangeError,
    );
  });
});

describe("checkpointTau", () => {
  // A: long prompt, 100 steps, 300 accepted → τ 4.0 (400 tokens)
  // B: short prompt, 2 steps, 0 accepted → τ 1.0 (2 tokens)
  // C: medium prompt, 10 steps, 10 accepted → τ 2.0 (20 tokens)
  const a = { verifySteps: 100, acceptedTokens: 300, category: "code" };
  const b = { verifySteps: 2, acceptedTokens: 0, category: "chat" };
  const c = { verifySteps: 10, acceptedTokens: 10, category: "code" };

  test("Σ tokens / Σ steps, which differs from the mean of per-prompt τ and from the last value", () => {
    // (400 + 2 + 20) / (100 + 2 + 10) = 422 / 112
    expect(checkpointTau([a, b, c])).toBe(422 / 112);
    expect(checkpointTau([a, b, c])).toBeCloseTo(3.767857142857143, 15);
    // mean of per-prompt τ would be (4 + 1 + 2) / 3 = 2.333…; the last value 2.0
    expect(checkpointTau([a, b, c])).not.toBeCloseTo(7 / 3, 3);
    expect(checkpointTau([a, b, c])).not.toBe(2);
    // order does not matter
    expect(checkpointTau([c, a, b])).toBe(422 / 112);
  });

  test("aggregate keeps the sums; empty input is null", () => {
    expect(aggregateTau([a, b, c])).toEqual({
      tau: 422 / 112,
      verifySteps: 112,
      acceptedTokens: 310,
      tokensProduced: 422,
      results: 3,
    });
    expect(aggregateTau([])).toBeNull();
    expect(checkpointTau([])).toBeNull();
    expect(() => checkpointTau([a, { verifySteps: 0, acceptedTokens: 1 }])).toThrow(RangeError);
  });

  test("by category: the same ratio of sums within each category, uncategorised last", () => {
    const none = { verifySteps: 5, acceptedTokens: 5 };
    expect(tauByCategory([a, b, c, none])).toEqual([
      { key: "chat", tau: 1, verifySteps: 2, acceptedTokens: 0, tokensProduced: 2, results: 1 },
      // (400 + 20) / 110, not (4 + 2) / 2 = 3
      {
        key: "code",
        tau: 420 / 110,
        verifySteps: 110,
        acceptedTokens: 310,
        tokensProduced: 420,
        results: 2,
      },
      { key: null, tau: 2, verifySteps: 5, acceptedTokens: 5, tokensProduced: 10, results: 1 },
    ]);
  });

  test("groupTau splits by any key (checkpoint and draft settings)", () => {
    const rows = [
      {
        checkpoint: { step: 2000 },
        draft: { steps: 3, topk: 1 },
        verifySteps: 10,
        acceptedTokens: 20,
      },
      {
        checkpoint: { step: 2000 },
        draft: { topk: 1, steps: 3 },
        verifySteps: 30,
        acceptedTokens: 30,
      },
      {
        checkpoint: { step: 4000 },
        draft: { steps: 3, topk: 1 },
        verifySteps: 10,
        acceptedTokens: 40,
      },
    ];
    const byCheckpoint = groupTau(
      rows,
      (r) => `${checkpointKey(r.checkpoint)}|${draftSettingsKey(r.draft)}`,
    );
    expect(byCheckpoint.map((g) => [g.key, g.tau])).toEqual([
      ['step:2000|[["steps",3],["topk",1]]', 90 / 40],
      ['step:4000|[["steps",3],["topk",1]]', 5],
    ]);
    expect(checkpointKey({ label: "ckpt-a", uri: "s3://x" })).toBe("label:ckpt-a");
    expect(checkpointKey({ uri: "s3://x" })).toBe("uri:s3://x");
    expect(checkpointKey({})).toBeNull();
    expect(draftSettingsKey({})).toBeNull();
    expect(draftSettingsKey(undefined)).toBeNull();
  });
});

describe("perPromptTau", () => {
  test("quantiles by linear interpolation, unweighted mean, aligned bins", () => {
    // τ values: 1.0, 1.5, 2.0, 2.6, 4.0 (steps 10 each: accepted 0, 5, 10, 16, 30)
    const results = [0, 5, 10, 16, 30].map((acceptedTokens) => ({
      verifySteps: 10,
      acceptedTokens,
    }));
    const d = perPromptTau(results);
    expect(d).not.toBeNull();
    if (!d) return;
    expect(d.count).toBe(5);
    expect(d.min).toBe(1);
    expect(d.max).toBe(4);
    expect(d.meanOfPrompts).toBeCloseTo(11.1 / 5, 12);
    // positions q·(n−1): p10 at 0.4 → 1.0 + 0.4·0.5 = 1.2; p50 at 2 → 2.0; p90 at 3.6 → 2.6 + 0.6·1.4 = 3.44
    expect(d.p10).toBeCloseTo(1.2, 12);
    expect(d.p50).toBe(2);
    expect(d.p90).toBeCloseTo(3.44, 12);
    expect(d.binWidth).toBe(0.5);
    expect(d.bins).toEqual([
      { lo: 1, hi: 1.5, count: 1 },
      { lo: 1.5, hi: 2, count: 1 },
      { lo: 2, hi: 2.5, count: 1 },
      { lo: 2.5, hi: 3, count: 1 },
      { lo: 3, hi: 3.5, count: 0 },
      { lo: 3.5, hi: 4, count: 0 },
      // the max sits on an edge: its own bin [4, 4.5)
      { lo: 4, hi: 4.5, count: 1 },
    ]);
    // the checkpoint τ of the same results is Σ/Σ = 111 / 50 here only because all steps are equal
    expect(checkpointTau(results)).toBeCloseTo(111 / 50, 12);
  });

  test("custom width snaps float noise; edge cases", () => {
    const d = perPromptTau(
      [
        { verifySteps: 10, acceptedTokens: 3 },
        { verifySteps: 10, acceptedTokens: 5 },
      ],
      { binWidth: 0.1 },
    );
    expect(d?.bins).toEqual([
      { lo: 1.3, hi: 1.4, count: 1 },
      { lo: 1.4, hi: 1.5, count: 0 },
      { lo: 1.5, hi: 1.6, count: 1 },
    ]);
    expect(perPromptTau([])).toBeNull();
    expect(perPromptTau([{ verifySteps: 3, acceptedTokens: 3 }])).toMatchObject({
      count: 1,
      p10: 2,
      p50: 2,
      p90: 2,
      bins: [{ lo: 2, hi: 2.5, count: 1 }],
    });
    expect(() => perPromptTau([{ verifySteps: 1, acceptedTokens: 0 }], { binWidth: 0 })).toThrow(
      RangeError,
    );
    expect(() =>
      perPromptTau(
        [
          { verifySteps: 1, acceptedTokens: 0 },
          { verifySteps: 1, acceptedTokens: 100 },
        ],
        { binWidth: 0.01 },
      ),
    ).toThrow(/bins/);
  });

  test("quantileSorted", () => {
    expect(quantileSorted([5], 0.9)).toBe(5);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(() => quantileSorted([], 0.5)).toThrow(RangeError);
    expect(() => quantileSorted([1], 1.5)).toThrow(RangeError);
  });
});

describe("conversions from producers", () => {
  test("SGLang/SpecForge accept length with a known verify count", () => {
    // SpecForge docs sample, mtbench: 3911 completion tokens over 1802 verify steps
    const counts = fromAcceptLength(2.170366259711432, 1802);
    // (2.170366259711432 − 1) × 1802 = 2109.0000000000002 → snapped to 2109
    expect(counts).toEqual({ verifySteps: 1802, acceptedTokens: 2109 });
    expect(tauOf(counts)).toBe(3911 / 1802);
    // float noise is snapped: (3.12 − 1) × 100 = 212.00000000000003 in floats
    expect(fromAcceptLength(3.12, 100)).toEqual({ verifySteps: 100, acceptedTokens: 212 });
    // a real fraction is kept, never rounded into an invented count
    expect(fromAcceptLength(3.125, 3)).toEqual({ verifySteps: 3, acceptedTokens: 6.375 });
    expect(fromAcceptLength(1, 10)).toEqual({ verifySteps: 10, acceptedTokens: 0 });
    // "no speculative decoding" sentinels are not accept lengths
    expect(() => fromAcceptLength(-1, 10)).toThrow(RangeError);
    expect(() => fromAcceptLength(0, 10)).toThrow(RangeError);
    expect(() => fromAcceptLength(Number.NaN, 10)).toThrow(RangeError);
    expect(() => fromAcceptLength(2.5, 0)).toThrow(RangeError);
  });

  test("vLLM counters: drafts are verify steps, accepted excludes the bonus token", () => {
    const counts = fromVllmCounters({ numDrafts: 400, numAcceptedTokens: 900 });
    expect(counts).toEqual({ verifySteps: 400, acceptedTokens: 900 });
    // vLLM's acceptance_length = 1 + 900 / 400
    expect(tauOf(counts)).toBe(3.25);
    expect(() => fromVllmCounters({ numDrafts: 0, numAcceptedTokens: 0 })).toThrow(RangeError);
  });

  test("SGLang meta_info completion_tokens / spec_verify_ct", () => {
    expect(fromSpecVerifyCount({ completionTokens: 512, specVerifyCt: 160 })).toEqual({
      verifySteps: 160,
      acceptedTokens: 352,
    });
    expect(tauOf(fromSpecVerifyCount({ completionTokens: 512, specVerifyCt: 160 }))).toBe(3.2);
    expect(() => fromSpecVerifyCount({ completionTokens: 10, specVerifyCt: 0 })).toThrow(
      RangeError,
    );
    expect(() => fromSpecVerifyCount({ completionTokens: 10, specVerifyCt: 11 })).toThrow(
      RangeError,
    );
  });

  test("reported figures get a metric key, never counts", () => {
    expect(reportedTauMetricKey("gsm8k")).toBe("tau/gsm8k");
    expect(reportedTauMetricKey(null)).toBe("tau/all");
    expect(reportedTauMetricKey("")).toBe("tau/all");
  });
});
