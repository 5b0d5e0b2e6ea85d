import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { checkpointTau, tauByCategory, tauOf } from "../metrics/tau";
import type { EvalResultInput, MetricPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { evalRunKey, type ImportedEvalRun } from "./eval-run";
import {
  detectEvalFormat,
  detectImportFormat,
  EvalImportError,
  importEvalFiles,
  importFiles,
  recoverSpecForgeCounts,
  UnknownFormatError,
} from "./index";
import { sha256Hex } from "./source-text";
import { expectValidFrames, fixture, fixturesDir } from "./testing";

const SAMPLE = fixture("specforge-bench-eagle3", "results_sample.json");

function resultsOf(run: ImportedEvalRun): EvalResultInput[] {
  return run.frames.flatMap((f) => (f.type === "run.eval" ? f.results : []));
}

function metricsOf(run: ImportedEvalRun): MetricPointInput[] {
  return run.frames.flatMap((f) => (f.type === "run.metrics" ? f.points : []));
}

function only(runs: ImportedEvalRun[]): ImportedEvalRun {
  expect(runs).toHaveLength(1);
  return runs[0] as ImportedEvalRun;
}

describe("SpecForge bench_eagle3 fixture (SGLang docs sample)", () => {
  test("counts are recovered exactly from latency × throughput and accept_length", () => {
    expect(
      recoverSpecForgeCounts(12.232808108034078, 319.71399906382845, 2.170366259711432),
    ).toEqual({ ok: true, tokens: 3911, verifySteps: 1802 });
    expect(recoverSpecForgeCounts(37.42077191895805, 373.6160234823207, 2.643410852713178)).toEqual(
      { ok: true, tokens: 13981, verifySteps: 5289 },
    );
    // the writer's own divisions give back the file's floats bit for bit
    expect(3911 / 1802).toBe(2.170366259711432);
    expect(13981 / 37.42077191895805).toBe(373.6160234823207);
    // a rounded figure does not: no counts are invented for it
    expect(recoverSpecForgeCounts(12.232808108034078, 319.71399906382845, 2.17).ok).toBe(false);
    expect(recoverSpecForgeCounts(12.23, 319.71399906382845, 2.170366259711432).ok).toBe(false);
    expect(recoverSpecForgeCounts(0, 319.7, 2.17).ok).toBe(false);
  });

  test("one eval run: a result per benchmark with measured counts, metrics per benchmark", () => {
    const result = importEvalFiles([SAMPLE]);
    expect(result.problems).toEqual([]);
    const run = only(result.runs);
    expectValidFrames(run.frames);
    expect(run.format).toBe("specforge-bench-eagle3");
    expect(run.kind).toBe("eval");
    expect(run.runKey).toBe(evalRunKey("specforge-bench-eagle3", sha256Hex(SAMPLE.text)));
    expect(run.name).toBe("results_sample.json");
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.eval",
      "run.metrics",
      "run.end",
    ]);

    const draft = { batch_size: 1, steps: null, topk: null, num_draft_tokens: null };
    expect(resultsOf(run)).toEqual([
      {
        key: "r0.0:mtbench",
        checkpoint: {},
        dataset: "mtbench",
        draft,
        outputTokPerS: 319.71399906382845,
        promptId: "mtbench",
        category: "mtbench",
        verifySteps: 1802,
        acceptedTokens: 2109,
      },
      {
        key: "r0.0:gsm8k",
        checkpoint: {},
        dataset: "gsm8k",
        draft,
        outputTokPerS: 373.6160234823207,
        promptId: "gsm8k",
        category: "gsm8k",
        verifySteps: 5289,
        acceptedTokens: 8692,
      },
    ]);
    // τ from the counts is exactly the file's accept_length
    const [mt, gsm] = resultsOf(run) as [EvalResultInput, EvalResultInput];
    expect(tauOf(mt)).toBe(2.170366259711432);
    expect(tauOf(gsm)).toBe(2.643410852713178);
    // the checkpoint τ weighs by verify steps: (3911 + 13981) / (1802 + 5289), not the mean 2.4069
    expect(checkpointTau(resultsOf(run))).toBe(17892 / 7091);
    expect(tauByCategory(resultsOf(run)).map((g) => [g.key, g.tau])).toEqual([
      ["gsm8k", 13981 / 5289],
      ["mtbench", 3911 / 1802],
    ]);

    // step 0 = the only draft config; accuracy only where the file has one; no reported τ
    expect(metricsOf(run)).toEqual([
      { key: "accuracy/gsm8k", step: 0, value: 0.96 },
      { key: "latency_s/gsm8k", step: 0, value: 37.42077191895805 },
      { key: "latency_s/mtbench", step: 0, value: 12.232808108034078 },
      { key: "output_tok_s/gsm8k", step: 0, value: 373.6160234823207 },
      { key: "output_tok_s/mtbench", step: 0, value: 319.71399906382845 },
    ]);

    const start = run.frames[0];
    expect(start).toMatchObject({
      type: "run.start",
      kind: "eval",
      config: {
        format: "specforge-bench-eagle3",
        benchmarkTool: "SpecForge bench_eagle3",
        datasets: {
          mtbench: { numSamples: 5, numQuestions: 5 },
          gsm8k: { numSamples: 100, numQuestions: 100 },
        },
        draftConfigs: [draft],
        sourceFiles: ["results_sample.json"],
      },
    });
    expect(run.frames[3]).toMatchObject({ type: "run.end", status: "succeeded" });
  });

  test("re-import is identical; name, host and tags apply; detection by content", () => {
    const a = importEvalFiles([SAMPLE], {
      name: "EAGLE3 Llama-3.1-8B",
      host: "kpro5",
      tags: ["eagle3"],
    });
    expect(
      stringifyJson(
        importEvalFiles([SAMPLE], { name: "EAGLE3 Llama-3.1-8B", host: "kpro5", tags: ["eagle3"] }),
      ),
    ).toBe(stringifyJson(a));
    // another path: same run key and the same result/metric frames (ids included); only run.start
    // (sourceFiles) and the run.end after it change
    const moved = only(
      importEvalFiles([{ path: "elsewhere/renamed.jsonl", text: SAMPLE.text }], {
        name: "EAGLE3 Llama-3.1-8B",
        host: "kpro5",
        tags: ["eagle3"],
      }).runs,
    );
    expect(moved.runKey).toBe(only(a.runs).runKey);
    expect(moved.frames.slice(1, -1)).toEqual(only(a.runs).frames.slice(1, -1));
    expect(moved.frames[0]?.id).not.toBe(only(a.runs).frames[0]?.id);
    const run = only(a.runs);
    expect(run.frames[0]).toMatchObject({
      name: "EAGLE3 Llama-3.1-8B",
      host: "kpro5",
      tags: ["eagle3"],
    });
    // the same file twice is imported once
    const twice = importEvalFiles([SAMPLE, { path: "copy.json", text: SAMPLE.text }]);
    expect(twice.runs).toHaveLength(1);
    expect(twice.problems).toEqual([
      { file: "copy.json", line: 0, message: `same content as ${SAMPLE.path}; imported once` },
    ]);

    expect(detectEvalFormat(SAMPLE.text)).toBe("specforge-bench-eagle3");
    // benchmark/training detection keeps answering null for it
    expect(detectImportFormat(SAMPLE.text)).toBeNull();
    for (const folder of [
      "sglang-bench-serving",
      "vllm-bench-serve",
      "opencode-export",
      "claude-code-transcript",
    ]) {
      for (const name of fs
        .readdirSync(path.join(fixturesDir, folder))
        .filter((f) => /\.(jsonl?|ndjson)$/.test(f))) {
        expect(
          detectEvalFormat(fs.readFileSync(path.join(fixturesDir, folder, name), "utf8")),
          `${folder}/${name}`,
        ).toBeNull();
      }
    }
    expect(detectEvalFormat('{"model": null}')).toBeNull();
    expect(detectEvalFormat('{"gsm8k": [{"metrics": []}]}')).toBeNull();
    expect(() => importEvalFiles([{ path: "x.json", text: '{"a": 1}' }])).toThrow(
      UnknownFormatError,
    );
    expect(() => importEvalFiles([SAMPLE], { host: "bad host" })).toThrow(EvalImportError);

    // importFiles routes it to the eval importer
    const mixed = importFiles([SAMPLE]);
    expect(mixed.evalRuns.map((r) => r.runKey)).toEqual([run.runKey]);
    expect(mixed.benchmarkRuns).toEqual([]);
  });
});

// ─── A file as the real writer produces it ────────────────────────────────────────────────────────
// bench_eagle3.py with `--config-list 1,0,0,0 1,3,1,4 --benchmark-list mtbench:5 gsm8k:100` and the
// `"model"` key the docs sample omits; metrics computed with the writer's formulas from chosen
// Σ completion_tokens / Σ spec_verify_ct and latencies (JS and Python floats divide alike).

/** One metrics object as `compute_metrics` writes it. */
function metrics(
  tokens: number,
  verify: number | null,
  latency: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    latency,
    output_throughput: tokens / latency,
    accept_length: verify === null ? 1.0 : tokens / verify,
    accuracy: null,
    num_questions: 5,
    num_valid_predictions: 0,
    categorical_performance: null,
    ...extra,
  };
}

function writerFile(): string {
  const results = {
    model: "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
    mtbench: [
      {
        batch_size: 1,
        steps: 0,
        topk: 0,
        num_draft_tokens: 0,
        metrics: [metrics(3911, null, 30.5)],
        num_samples: 5,
      },
      {
        batch_size: 1,
        steps: 3,
        topk: 1,
        num_draft_tokens: 4,
        // two runs (num_runs 2); the first split by category (latency of the whole run)
        metrics: [
          metrics(3911, 1802, 12.25, {
            categorical_performance: {
              writing: metrics(1500, 600, 12.25),
              coding: metrics(2411, 1202, 12.25),
            },
          }),
          metrics(3900, 1800, 12.5),
        ],
        num_samples: 5,
      },
    ],
    gsm8k: [
      {
        batch_size: 1,
        steps: 0,
        topk: 0,
        num_draft_tokens: 0,
        metrics: [{ ...metrics(13981, null, 80.0), accuracy: 0.95 }],
        num_samples: 100,
      },
      // a hand-edited row with a rounded accept length: reported, not counted
      {
        batch_size: 1,
        steps: 3,
        topk: 1,
        num_draft_tokens: 4,
        metrics: [{ ...metrics(13981, 5289, 37.5), accept_length: 2.64, accuracy: 0.96 }],
        num_samples: 100,
      },
      // speculation configured, but no verify counts from the server
      {
        batch_size: 8,
        steps: 3,
        topk: 1,
        num_draft_tokens: 4,
        metrics: [metrics(13981, null, 20.0)],
        num_samples: 100,
      },
    ],
  };
  return JSON.stringify(results, null, 4);
}

describe("SpecForge bench_eagle3 as the writer produces it", () => {
  const file = { path: "results/eagle3_results_20261129_093000.jsonl", text: writerFile() };
  const lines = file.text.split("\n");
  const lineOf = (needle: string, from = 0) =>
    lines.findIndex((l, i) => i >= from && l.includes(needle)) + 1;

  test("baseline rows give throughput only; categories replace their total; rounded figures stay reported", () => {
    const result = importEvalFiles([file]);
    const run = only(result.runs);
    expectValidFrames(run.frames);
    const label = { label: "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B" };
    const d1 = { batch_size: 1, steps: 3, topk: 1, num_draft_tokens: 4 };
    expect(
      resultsOf(run).map((r) => [
        r.key,
        r.category,
        r.verifySteps,
        r.acceptedTokens,
        r.outputTokPerS,
      ]),
    ).toEqual([
      ["r1.0:mtbench/writing", "mtbench/writing", 600, 900, 1500 / 12.25],
      ["r1.0:mtbench/coding", "mtbench/coding", 1202, 1209, 2411 / 12.25],
      ["r1.1:mtbench", "mtbench", 1800, 2100, 3900 / 12.5],
    ]);
    for (const r of resultsOf(run)) {
      expect(r.checkpoint).toEqual(label);
      expect(r.draft).toEqual(d1);
      expect(r.dataset).toBe("mtbench");
    }
    // categories sum to the first run's total: nothing is counted twice
    expect(checkpointTau(resultsOf(run))).toBe((3911 + 3900) / (1802 + 1800));

    // steps: 0 = config (1,0,0,0), 1 = (1,3,1,4), 2 = (8,3,1,4); two runs are averaged
    expect(metricsOf(run)).toEqual([
      { key: "accuracy/gsm8k", step: 0, value: 0.95 },
      { key: "latency_s/gsm8k", step: 0, value: 80 },
      { key: "latency_s/mtbench", step: 0, value: 30.5 },
      { key: "output_tok_s/gsm8k", step: 0, value: 13981 / 80 },
      { key: "output_tok_s/mtbench", step: 0, value: 3911 / 30.5 },
      { key: "accuracy/gsm8k", step: 1, value: 0.96 },
      { key: "latency_s/gsm8k", step: 1, value: 37.5 },
      { key: "latency_s/mtbench", step: 1, value: (12.25 + 12.5) / 2 },
      { key: "output_tok_s/gsm8k", step: 1, value: 13981 / 37.5 },
      { key: "output_tok_s/mtbench", step: 1, value: (3911 / 12.25 + 3900 / 12.5) / 2 },
      { key: "tau/gsm8k", step: 1, value: 2.64 },
      { key: "latency_s/gsm8k", step: 2, value: 20 },
      { key: "output_tok_s/gsm8k", step: 2, value: 13981 / 20 },
    ]);
    expect(run.frames[0]).toMatchObject({
      config: {
        draftModel: "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
        draftConfigs: [
          { batch_size: 1, steps: 0, topk: 0, num_draft_tokens: 0 },
          d1,
          { batch_size: 8, steps: 3, topk: 1, num_draft_tokens: 4 },
        ],
      },
    });
    // the (8,3,1,4) gsm8k row: the third element of the gsm8k list
    const gsmStart = lineOf('"gsm8k"');
    const third = lineOf('"batch_size": 8', gsmStart) - 1;
    expect(result.problems).toEqual([
      {
        file: file.path,
        line: third,
        message:
          "gsm8k[2].metrics[0]: speculative decoding was configured (steps 3) but accept_length is 1.0, the writer's value when the server reports no spec_verify_ct; no τ imported for it",
      },
    ]);
    expect(lines[third - 1]?.trim()).toBe("{");
  });

  test("categories that do not add up fall back to the total, their figures reported", () => {
    const doc = JSON.parse(writerFile()) as {
      mtbench: {
        metrics: { categorical_performance: Record<string, Record<string, unknown>> }[];
      }[];
    };
    const cats = (
      doc.mtbench[1] as {
        metrics: { categorical_performance: Record<string, Record<string, unknown>> }[];
      }
    ).metrics[0]!.categorical_performance;
    cats.coding = metrics(2400, 1202, 12.25);
    const run = only(
      importEvalFiles([{ path: "r.json", text: JSON.stringify(doc, null, 4) }]).runs,
    );
    expect(resultsOf(run).map((r) => [r.key, r.verifySteps, r.acceptedTokens])).toEqual([
      ["r1.0:mtbench", 1802, 2109],
      ["r1.1:mtbench", 1800, 2100],
    ]);
    expect(metricsOf(run).filter((p) => p.key.startsWith("tau/"))).toEqual([
      { key: "tau/gsm8k", step: 1, value: 2.64 },
      { key: "tau/mtbench/coding", step: 1, value: 2400 / 1202 },
      { key: "tau/mtbench/writing", step: 1, value: 1500 / 600 },
    ]);
  });

  test("bad rows are problems at their line; NaN and odd values never become counts", () => {
    const text = JSON.stringify(
      {
        model: null,
        humaneval: [
          {
            batch_size: 1,
            steps: 3,
            topk: 1,
            num_draft_tokens: 4,
            metrics: ["oops", { ...metrics(1000, 400, 10), accept_length: "2.5" }],
            num_samples: 5,
          },
          {
            batch_size: 1,
            steps: null,
            topk: null,
            num_draft_tokens: null,
            metrics: [{ ...metrics(1000, null, 10), accept_length: 1.0 }],
            num_samples: 5,
          },
        ],
      },
      null,
      4,
    ).replace('"accept_length": "2.5"', '"accept_length": NaN');
    const result = importEvalFiles([{ path: "h.json", text }]);
    const run = only(result.runs);
    expect(resultsOf(run)).toEqual([]);
    // only metrics: an eval run can carry figures without counts
    expect(run.frames.map((f) => f.type)).toEqual(["run.start", "run.metrics", "run.end"]);
    expect(result.problems.map((p) => [p.line, p.message])).toEqual([
      [4, "humaneval[0].metrics[0] is not an object; skipped"],
      [4, "humaneval[0].metrics[1]: accept_length NaN is not a number ≥ 1; no τ imported for it"],
    ]);
    // steps null (--skip-launch-server) with 1.0: the server had no speculation; not a problem
    expect(metricsOf(run).map((p) => p.key)).toEqual([
      "latency_s/humaneval",
      "output_tok_s/humaneval",
      "latency_s/humaneval",
      "output_tok_s/humaneval",
    ]);
  });

  test("many rows split into frames within the limits", () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({
      batch_size: i + 1,
      steps: 3,
      topk: 1,
      num_draft_tokens: 4,
      metrics: [metrics(1000 + i, 400, 10)],
      num_samples: 5,
    }));
    const text = JSON.stringify({ model: "m", mtbench: rows }, null, 4);
    const run = only(
      importEvalFiles([{ path: "big.json", text }], {
        maxResultsPerFrame: 16,
        maxPointsPerFrame: 30,
      }).runs,
    );
    expectValidFrames(run.frames);
    const evalFrames = run.frames.filter((f) => f.type === "run.eval");
    expect(evalFrames.map((f) => (f.type === "run.eval" ? f.results.length : 0))).toEqual([
      16, 16, 8,
    ]);
    expect(run.resultCount).toBe(40);
    expect(run.metricPointCount).toBe(80);
    expect(new Set(run.frames.map((f) => f.id)).size).toBe(run.frames.length);
    expect(() => importEvalFiles([{ path: "big.json", text }], { maxResultsPerFrame: 0 })).toThrow(
      /maxResultsPerFrame/,
    );
  });
});
