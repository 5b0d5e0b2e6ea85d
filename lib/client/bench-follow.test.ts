import { describe, expect, test } from "vitest";

import { importBenchmarkFiles } from "@/lib/importers/benchmark-import";
import { expectValidFrames, fixture } from "@/lib/importers/testing";
import type { BenchmarkPointInput, ClientFrameInput } from "@/lib/protocol";

import { BenchFollower } from "./bench-follow";
import type { TailLine } from "./file-tail";

// Live import of sweep files line by line: the same points as `pitwall import` of the whole file,
// deterministic ids (a restarted watcher sends the same frames), bad lines skipped.

const sglang = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);
const vllm = fixture("vllm-bench-serve", "nerdalert_2025-05_benchmark_serving_results.jsonl");
const linesOf = (text: string): TailLine[] =>
  text
    .split("\n")
    .filter((t, i, all) => i < all.length - 1 || t !== "")
    .map((text, i) => ({ line: i + 1, text }));
const pointsIn = (frames: readonly ClientFrameInput[]): BenchmarkPointInput[] =>
  frames.flatMap((f) => (f.type === "run.benchmark" ? f.points : []));
const runOf = (f: ClientFrameInput | undefined) => (f && "run" in f ? f.run : undefined);
const withoutKey = ({ key: _key, ...rest }: BenchmarkPointInput) => rest;

describe("BenchFollower", () => {
  test.each([
    ["SGLang bench_serving", sglang],
    ["vLLM bench serve", vllm],
  ])(
    "%s: lines fed one by one give the same points as importing the finished file",
    (_label, file) => {
      const f = new BenchFollower({ file: "/data/sweep.jsonl", keySalt: "kpro5" });
      const frames: ClientFrameInput[] = [];
      for (const line of linesOf(file.text)) {
        const out = f.add([line]);
        expect(out.problems).toEqual([]);
        expect(out.points).toHaveLength(1);
        frames.push(...out.frames);
      }
      expectValidFrames(frames);
      expect(frames[0]).toMatchObject({
        type: "run.start",
        kind: "benchmark",
        run: f.runKey,
        name: "sweep.jsonl",
      });
      const imported = importBenchmarkFiles([file]).runs[0]!;
      const importedPoints = imported.frames.flatMap((fr) =>
        fr.type === "run.benchmark" ? fr.points : [],
      );
      expect(pointsIn(frames).map(withoutKey)).toEqual(importedPoints.map(withoutKey));
      expect(f.points).toBe(importedPoints.length);
      expect(f.end()).toMatchObject({ type: "run.end", run: f.runKey, status: "succeeded" });
    },
  );

  test("a restart reading the file again gives the same run key and the same point frame ids", () => {
    const a = new BenchFollower({ file: "/data/sweep.jsonl", keySalt: "kpro5" });
    const b = new BenchFollower({ file: "/data/sweep.jsonl", keySalt: "kpro5" });
    const lines = linesOf(sglang.text);
    const incremental = lines.flatMap((l) => a.add([l]).frames);
    const atOnce = b.add(lines).frames;
    const ids = (fs: ClientFrameInput[]) =>
      fs.filter((f) => f.type === "run.benchmark").map((f) => f.id);
    expect(b.runKey).toBe(a.runKey);
    expect(a.runKey).toMatch(/^watch:[0-9a-f]{32}$/);
    expect(ids(atOnce)).toEqual(ids(incremental));
    expect(new Set(ids(atOnce)).size).toBe(lines.length);
    // Another host or path, or another first line: another run.
    expect(
      runOf(
        new BenchFollower({ file: "/data/sweep.jsonl", keySalt: "kpro6" }).add(lines).frames[0],
      ),
    ).not.toBe(a.runKey);
    expect(
      runOf(
        new BenchFollower({ file: "/data/sweep.jsonl", keySalt: "kpro5" }).add(lines.slice(1))
          .frames[0],
      ),
    ).not.toBe(a.runKey);
  });

  test("bad lines are problems with their line numbers; blank lines are skipped; run.start only when the config changes", () => {
    const f = new BenchFollower({
      file: "/data/s.jsonl",
      runKey: "given-key",
      name: "Qwen sweep",
      tags: ["live"],
    });
    const [l1, l2] = linesOf(sglang.text);
    const first = f.add([
      l1!,
      { line: 2, text: "" },
      { line: 3, text: '{"not": "a result"}' },
      { line: 4, text: "{cut" },
    ]);
    expect(first.frames.map((fr) => fr.type)).toEqual(["run.start", "run.benchmark"]);
    expect(first.frames[0]).toMatchObject({
      run: "given-key",
      name: "Qwen sweep",
      tags: ["live"],
      config: { format: "sglang-bench-serving", live: true, sourceFiles: ["s.jsonl"] },
    });
    expect(first.problems.map((p) => p.line)).toEqual([3, 4]);
    const second = f.add([
      { line: 5, text: l2!.text },
      { line: 6, text: vllm.text.split("\n")[0]! },
    ]);
    expect(second.frames.map((fr) => fr.type)).toEqual(["run.benchmark"]); // same facts: no new run.start
    expect(pointsIn(second.frames)[0]).toMatchObject({ ord: 5 });
    expect(second.problems).toEqual([
      {
        file: "/data/s.jsonl",
        line: 6,
        message: "a vllm-bench-serve row in a sglang-bench-serving file; skipped",
      },
    ]);
  });

  test("with startRun false (pitwall run --follow) only points are sent and the run is not ended", () => {
    const f = new BenchFollower({ file: "/data/s.jsonl", runKey: "run-abc", startRun: false });
    const out = f.add(linesOf(sglang.text).slice(0, 2));
    expect(out.frames.map((fr) => [fr.type, runOf(fr)])).toEqual([
      ["run.benchmark", "run-abc"],
      ["run.benchmark", "run-abc"],
    ]);
    expect(f.end()).toBeNull();
  });
});
