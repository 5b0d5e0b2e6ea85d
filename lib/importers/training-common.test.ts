import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { stringifyJson } from "../protocol/json";
import {
  detectFormat,
  detectImportFormat,
  detectTrainingFormat,
  importBenchmarkFiles,
  importFiles,
  importTrainingFiles,
  TrainingImportError,
  UnknownFormatError,
} from "./index";
import { utf8ByteLength } from "./source-text";
import { parseNumberLike } from "./source-values";
import { expectValidFrames, fixture, fixtureFiles, fixturesDir } from "./testing";
import { parseDurationS, parseStepValue, readMetricValue } from "./training-common";
import { defaultTrainingRunName } from "./training-run";

/** A LLaMA-Factory 0.9 trainer_log line. */
function lfLine(step: number, total: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    current_steps: step,
    total_steps: total,
    loss: 2 - step / 1000,
    lr: 5e-5,
    epoch: step / 100,
    percentage: (step / total) * 100,
    elapsed_time: "0:00:10",
    remaining_time: "0:00:20",
    ...extra,
  })
    .replace(/,"/g, ', "')
    .replace(/":/g, '": ');
}

/** A small trainer_state.json (one line is also valid). */
function hfState(globalStep: number, maxSteps: number, firstLoss = 2.5): string {
  const history = [];
  for (let s = 10; s <= globalStep; s += 10)
    history.push({
      epoch: s / 100,
      learning_rate: 5e-5,
      loss: s === 10 ? firstLoss : 2 - s / 1000,
      step: s,
    });
  return JSON.stringify(
    {
      global_step: globalStep,
      log_history: history,
      logging_steps: 10,
      max_steps: maxSteps,
      train_batch_size: 4,
    },
    null,
    2,
  );
}

describe("value readers", () => {
  test("Python str(timedelta) durations", () => {
    expect(parseDurationS("0:01:02")).toBe(62);
    expect(parseDurationS("4 days, 5:06:09")).toBe(4 * 86_400 + 5 * 3_600 + 6 * 60 + 9);
    expect(parseDurationS("1 day, 0:00:01.5")).toBe(86_401.5);
    expect(parseDurationS("0:00:00.000001")).toBe(0.000001);
    expect(parseDurationS("-1 day, 23:59:59")).toBe(-1);
    expect(parseDurationS("12:00:00")).toBe(43_200);
    expect(parseDurationS(" 0:00:07 ")).toBe(7);
    expect(parseDurationS(42.5)).toBe(42.5);
    for (const bad of [
      "",
      "soon",
      "1:2:3",
      "0:60:00",
      "2 weeks, 0:00:00",
      "1 day 0:00:01",
      null,
      Number.NaN,
    ])
      expect(parseDurationS(bad)).toBeNull();
  });

  test("numbers as strings, non-finite spellings", () => {
    expect(parseNumberLike("0.00")).toBe(0);
    expect(parseNumberLike("1234.56")).toBe(1234.56);
    expect(parseNumberLike(" 5e-05 ")).toBe(5e-5);
    expect(parseNumberLike("-.5")).toBe(-0.5);
    expect(parseNumberLike("nan")).toBeNaN();
    expect(parseNumberLike("NaN")).toBeNaN();
    expect(parseNumberLike("inf")).toBe(Number.POSITIVE_INFINITY);
    expect(parseNumberLike("-Infinity")).toBe(Number.NEGATIVE_INFINITY);
    expect(parseNumberLike(Number.NaN)).toBeNaN();
    for (const bad of ["", "abc", "1,5", "0x10", "1.2.3", null, true, {}])
      expect(parseNumberLike(bad)).toBeNull();

    expect(readMetricValue("0.00")).toEqual({ kind: "value", value: 0 });
    expect(readMetricValue(null)).toEqual({ kind: "absent" });
    expect(readMetricValue(false)).toEqual({ kind: "absent" });
    expect(readMetricValue({ a: 1 })).toEqual({ kind: "absent" });
    expect(readMetricValue("  ")).toEqual({ kind: "absent" });
    expect(readMetricValue("n/a")).toEqual({ kind: "invalid", message: 'not a number: "n/a"' });

    expect(parseStepValue(10)).toBe(10);
    expect(parseStepValue("10")).toBe(10);
    expect(parseStepValue("10.0")).toBe(10);
    for (const bad of [-1, 1.5, "1e3", "", null, Number.NaN, 2 ** 60])
      expect(parseStepValue(bad)).toBeNull();
  });

  test("default run names", () => {
    expect(defaultTrainingRunName("out/qwen3-drafter/checkpoint-500/trainer_state.json")).toBe(
      "qwen3-drafter",
    );
    expect(defaultTrainingRunName("/abs/saves/llama3/lora/sft/trainer_log.jsonl")).toBe("sft");
    expect(defaultTrainingRunName("C:\\runs\\dflash-b16\\trainer_state.json")).toBe("dflash-b16");
    expect(defaultTrainingRunName("trainer_log.jsonl")).toBe("trainer_log.jsonl");
    expect(defaultTrainingRunName("./checkpoint-20/trainer_state.json")).toBe("trainer_state.json");
    expect(defaultTrainingRunName("../trainer_state.json")).toBe("trainer_state.json");
  });
});

describe("detection among all formats", () => {
  test("benchmark fixtures stay benchmark files; training logs are training logs; others are neither", () => {
    const benchmarkFolders = ["sglang-bench-serving", "vllm-bench-serve"];
    for (const folder of benchmarkFolders) {
      for (const file of fixtureFiles(folder)) {
        expect(detectTrainingFormat(file.text), file.path).toBeNull();
        expect(detectImportFormat(file.text), file.path).toEqual({
          kind: "benchmark",
          format: folder,
        });
      }
    }
    expect(detectImportFormat(hfState(20, 100))).toEqual({
      kind: "training",
      format: "hf-trainer-state",
    });
    expect(detectImportFormat(JSON.stringify(JSON.parse(hfState(20, 100))))).toEqual({
      kind: "training",
      format: "hf-trainer-state",
    });
    expect(detectImportFormat(`\uFEFF${hfState(20, 100)}`)).toEqual({
      kind: "training",
      format: "hf-trainer-state",
    });
    expect(detectImportFormat(`${lfLine(10, 20)}\n`)).toEqual({
      kind: "training",
      format: "llamafactory-trainer-log",
    });
    expect(detectImportFormat(`oops\n${lfLine(10, 20)}\n`)).toEqual({
      kind: "training",
      format: "llamafactory-trainer-log",
    });
    expect(detectFormat(`${lfLine(10, 20)}\n`)).toBeNull();
    expect(detectFormat(hfState(20, 100))).toBeNull();

    // Other JSON files of the fixtures folder (agent transcripts, exports) are neither.
    for (const folder of fs.readdirSync(fixturesDir).filter((f) => !benchmarkFolders.includes(f))) {
      for (const name of fs
        .readdirSync(path.join(fixturesDir, folder))
        .filter((f) => /\.(jsonl?|ndjson)$/.test(f))) {
        expect(
          detectImportFormat(fs.readFileSync(path.join(fixturesDir, folder, name), "utf8")),
          `${folder}/${name}`,
        ).toBeNull();
      }
    }
    expect(detectImportFormat("")).toBeNull();
    expect(detectImportFormat('{"log_history": []}')).toBeNull();
    expect(detectImportFormat('{"current_steps": 1}')).toBeNull();
  });

  test("importFiles splits a mixed batch; the benchmark import is unchanged", () => {
    const llama = fixture(
      "sglang-bench-serving",
      "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
    );
    const hf = { path: "out/a/trainer_state.json", text: hfState(30, 30) };
    const lf = {
      path: "saves/b/trainer_log.jsonl",
      text: `${lfLine(10, 20)}\n${lfLine(20, 20)}\n`,
    };
    const mixed = importFiles([hf, llama, lf], { tags: ["mixed"] });
    expect(mixed.problems).toEqual([]);
    expect(mixed.benchmarkRuns).toHaveLength(1);
    expect(stringifyJson(mixed.benchmarkRuns)).toBe(
      stringifyJson(importBenchmarkFiles([llama], { tags: ["mixed"] }).runs),
    );
    expect(mixed.trainingRuns.map((r) => [r.name, r.format, r.pointCount, r.finished])).toEqual([
      ["a", "hf-trainer-state", 9, true],
      ["b", "llamafactory-trainer-log", 10, true],
    ]);
    for (const run of mixed.trainingRuns) {
      expectValidFrames(run.frames);
      expect(run.frames[0]).toMatchObject({ type: "run.start", tags: ["mixed"] });
    }

    expect(() => importFiles([{ path: "notes.txt", text: "hello" }])).toThrow(UnknownFormatError);
    expect(() => importFiles([{ path: "notes.txt", text: "hello" }])).toThrow(
      /notes\.txt: not a recognised benchmark result or training log .*trainer_state\.json/,
    );
    // The benchmark API keeps its own message.
    expect(() => importBenchmarkFiles([{ path: "notes.txt", text: "hello" }])).toThrow(
      /notes\.txt: not a recognised benchmark result file \(expected SGLang/,
    );
    expect(() => importTrainingFiles([llama])).toThrow(/not a recognised training log/);
  });
});

describe("runs and frames", () => {
  test("a name for files of two different trainings is an error; for snapshots of one it names the run", () => {
    const a = { path: "a/trainer_state.json", text: hfState(20, 100) };
    const b = { path: "b/trainer_state.json", text: hfState(20, 100, 2.4) };
    expect(importTrainingFiles([a, b]).runs.map((r) => r.name)).toEqual(["a", "b"]);
    expect(() => importTrainingFiles([a, b], { name: "one" })).toThrow(TrainingImportError);
    expect(() => importTrainingFiles([a, b], { name: "one" })).toThrow(/2 different training runs/);

    const later = { path: "a/checkpoint-40/trainer_state.json", text: hfState(40, 100) };
    const run = importTrainingFiles([later, a], { name: "drafter v3", host: "kpro5" });
    expect(run.runs).toHaveLength(1);
    expect(run.runs[0]?.frames[0]).toMatchObject({ name: "drafter v3", host: "kpro5" });
    expect(run.runs[0]?.lastStep).toBe(40);
  });

  test("identical files are imported once", () => {
    const a = { path: "a/trainer_log.jsonl", text: `${lfLine(10, 20)}\n` };
    const result = importTrainingFiles([a, { ...a, path: "copy/trainer_log.jsonl" }]);
    expect(result.runs).toHaveLength(1);
    expect(result.problems).toEqual([
      {
        file: "copy/trainer_log.jsonl",
        line: 0,
        message: "same content as a/trainer_log.jsonl; imported once",
      },
    ]);
  });

  test("metric frames respect the point and byte limits and stay valid", () => {
    const lines: string[] = [];
    const longKey = `rewards/${"é".repeat(190)}`;
    for (let s = 1; s <= 3000; s++) lines.push(lfLine(s, 3000, { [longKey]: s / 7 }));
    const file = { path: "big/trainer_log.jsonl", text: `${lines.join("\n")}\n` };
    const run = importTrainingFiles([file], { maxFrameBytes: 64 * 1024 }).runs[0]!;
    expectValidFrames(run.frames);
    const metricFrames = run.frames.filter((f) => f.type === "run.metrics");
    expect(metricFrames.length).toBeGreaterThan(10);
    for (const f of metricFrames)
      expect(utf8ByteLength(stringifyJson(f))).toBeLessThanOrEqual(64 * 1024);
    expect(
      metricFrames.reduce((n, f) => n + (f.type === "run.metrics" ? f.points.length : 0), 0),
    ).toBe(3000 * 6);
    expect(run.pointCount).toBe(3000 * 6);

    const byCount = importTrainingFiles([file], { maxPointsPerFrame: 10_000 }).runs[0]!;
    expectValidFrames(byCount.frames);
    expect(() => importTrainingFiles([file], { maxPointsPerFrame: 10_001 })).toThrow(
      /maxPointsPerFrame/,
    );
    expect(() => importTrainingFiles([file], { maxFrameBytes: 100 })).toThrow(/maxFrameBytes/);
    expect(() => importTrainingFiles([file], { host: "bad host!" })).toThrow(/invalid host/);
  });

  test("a changed run.start (new name) also changes the run.end id, so the end is applied again after it", () => {
    const text = `${lfLine(10, 20)}\n${lfLine(20, 20)}\n`;
    const one = importTrainingFiles([{ path: "x/trainer_log.jsonl", text }]).runs[0]!;
    const two = importTrainingFiles([{ path: "x/trainer_log.jsonl", text }], { name: "renamed" })
      .runs[0]!;
    expect(two.runKey).toBe(one.runKey);
    const idOf = (run: typeof one, type: string) => run.frames.find((f) => f.type === type)?.id;
    expect(idOf(two, "run.start")).not.toBe(idOf(one, "run.start"));
    expect(idOf(two, "run.metrics")).toBe(idOf(one, "run.metrics"));
    expect(idOf(two, "run.progress")).toBe(idOf(one, "run.progress"));
    expect(idOf(two, "run.end")).not.toBe(idOf(one, "run.end"));
  });
});
