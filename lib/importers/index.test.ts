import { describe, expect, test } from "vitest";

import { MAX_FRAME_BYTES } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import {
  BenchmarkImportError,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_POINTS_PER_FRAME,
  detectFormat,
  importBenchmarkFiles,
  UnknownFormatError,
  type ImportFile,
} from "./index";
import { sha256Hex, utf8ByteLength } from "./source-text";
import {
  at,
  endOf,
  expectValidFrames,
  fixture,
  onlyRun,
  pointsOf,
  pyJson,
  startOf,
} from "./testing";

const LLAMA = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);
const NERDALERT = fixture("vllm-bench-serve", "nerdalert_2025-05_benchmark_serving_results.jsonl");
const llamaLines = LLAMA.text.split("\n").filter((l) => l.trim() !== "");

/** A small vLLM result row for generated files; `i` varies the level. */
function vllmRow(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    date: "20250101-120000",
    backend: "vllm",
    model_id: "m",
    tokenizer_id: "m",
    num_prompts: 100,
    request_rate: "inf",
    burstiness: 1.0,
    max_concurrency: (i % 1024) + 1,
    ...extra,
    duration: 10.0 + i,
    completed: 100,
    total_input_tokens: 100000,
    total_output_tokens: 100000,
    request_throughput: 10.0,
    output_throughput: 1000.0 + i,
    total_token_throughput: 2000.0 + i,
    mean_ttft_ms: 50.0,
    median_ttft_ms: 45.0,
    p99_ttft_ms: 99.0,
  };
}

describe("detectFormat", () => {
  test("fixtures, synthetic rows, and non-results", () => {
    expect(detectFormat(LLAMA.text)).toBe("sglang-bench-serving");
    expect(detectFormat(NERDALERT.text)).toBe("vllm-bench-serve");
    expect(detectFormat(`\n\n${pyJson(vllmRow(1))}`)).toBe("vllm-bench-serve");
    expect(detectFormat("")).toBeNull();
    expect(detectFormat("hello\nworld")).toBeNull();
    // genai-perf style profile export: JSON, but no result row of either tool.
    expect(
      detectFormat(
        '{"request_throughput": {"unit": "requests/sec", "avg": 3.2}, "service_kind": "openai"}',
      ),
    ).toBeNull();
    // Only `completed`/`duration`: not enough to tell the tools apart.
    expect(detectFormat('{"completed": 1, "duration": 2.0}')).toBeNull();
    // A bad first line does not hide a good second one.
    expect(detectFormat(`oops\n${llamaLines[0]}`)).toBe("sglang-bench-serving");
  });
});

describe("bad lines", () => {
  test("a bad line in the middle is reported with its line number; the others import", () => {
    const text = [
      llamaLines[0],
      '{"backend": "sglang", "dataset_name": "random", "request_rate": 1.0, "dur',
      llamaLines[1],
      "",
      "[1, 2, 3]",
      '{"hello": "world"}',
      pyJson(vllmRow(3)),
      llamaLines[2],
    ].join("\n");
    const result = importBenchmarkFiles([{ path: "mixed.jsonl", text }]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    expect(run.pointCount).toBe(3);
    expect(pointsOf(run).map((p) => p.ord)).toEqual([1, 3, 8]);
    expect(pointsOf(run).map((p) => p.requestRate)).toEqual([1, 2, 4]);
    expect(result.problems.map((p) => [p.file, p.line])).toEqual([
      ["mixed.jsonl", 2],
      ["mixed.jsonl", 5],
      ["mixed.jsonl", 6],
      ["mixed.jsonl", 7],
    ]);
    expect(result.problems[0]?.message).toMatch(/not valid JSON/);
    expect(result.problems[1]?.message).toMatch(/expected a JSON object.*array/);
    expect(result.problems[2]?.message).toMatch(/no numeric 'completed' or 'duration'/);
    expect(result.problems[3]?.message).toMatch(/looks like vLLM bench serve output/);
  });

  test("a file with no recognisable result throws naming the file", () => {
    expect(() =>
      importBenchmarkFiles([
        { path: "/tmp/profile_export_genai_perf.json", text: '{"service_kind": "openai"}' },
      ]),
    ).toThrow(UnknownFormatError);
    expect(() =>
      importBenchmarkFiles([
        { path: "/tmp/profile_export_genai_perf.json", text: '{"service_kind": "openai"}' },
      ]),
    ).toThrow(/profile_export_genai_perf\.json: not a recognised benchmark result file.*line 1/);
    expect(() => importBenchmarkFiles([{ path: "empty.jsonl", text: "\n\n" }])).toThrow(
      /empty\.jsonl.*empty/,
    );
    // One unknown file stops the whole import (nothing half-imported).
    expect(() =>
      importBenchmarkFiles([LLAMA, { path: "notes.txt", text: "hello" }], { name: "x" }),
    ).toThrow(/notes\.txt/);
  });

  test("CRLF line ends and a BOM are tolerated", () => {
    const text = "\uFEFF" + llamaLines.slice(0, 3).join("\r\n") + "\r\n";
    const result = importBenchmarkFiles([{ path: "crlf.jsonl", text }]);
    expect(result.problems).toEqual([]);
    const points = pointsOf(onlyRun(result));
    expect(points.map((p) => p.outputTokPerS)).toEqual([
      537.4142851849319, 987.3125216200807, 2047.9108281108272,
    ]);
  });
});

describe("identity and determinism", () => {
  test("same input twice → identical frames; keys and ids derive from contents", () => {
    const a = importBenchmarkFiles([LLAMA], { host: "CT129", tags: ["h200"] });
    const again = importBenchmarkFiles([LLAMA], { host: "CT129", tags: ["h200"] });
    expect(again).toEqual(a);
    expect(stringifyJson(again)).toBe(stringifyJson(a));

    const run = onlyRun(a);
    expect(run.runKey).toBe(`import:${sha256Hex(LLAMA.text).slice(0, 32)}`);
    const first = at(pointsOf(run), 0);
    expect(first.key).toBe(
      `${sha256Hex(llamaLines[0] ?? "").slice(0, 16)}:${sha256Hex(LLAMA.text).slice(0, 8)}:1`,
    );
    for (const frame of run.frames) expect(frame.id.startsWith(`${run.runKey}/`)).toBe(true);
    expect(new Set(run.frames.map((f) => f.id)).size).toBe(run.frames.length);

    // Another folder and file name: the points and their frames are the same; the run.start
    // (default name, sourceFiles) differs, and so does the run.end's id, which follows the
    // start's so that a re-applied start (status back to running) is ended again.
    const moved = onlyRun(
      importBenchmarkFiles([{ path: "/elsewhere/llama.jsonl", text: LLAMA.text }], {
        host: "CT129",
        tags: ["h200"],
      }),
    );
    expect(moved.runKey).toBe(run.runKey);
    expect(moved.frames.slice(1, -1)).toEqual(run.frames.slice(1, -1));
    expect(moved.frames.at(-1)!.id).not.toBe(run.frames.at(-1)!.id);
    expect({ ...moved.frames.at(-1)!, id: "" }).toEqual({ ...run.frames.at(-1)!, id: "" });
    expect(startOf(moved).config?.sourceFiles).toEqual(["llama.jsonl"]);
  });

  test("changing the name changes run.start's id (so the server applies it) but not the run key", () => {
    const a = onlyRun(importBenchmarkFiles([LLAMA]));
    const b = onlyRun(importBenchmarkFiles([LLAMA], { name: "H200 llama 3.3 70B" }));
    expect(b.runKey).toBe(a.runKey);
    expect(startOf(b).id).not.toBe(startOf(a).id);
    expect(b.frames[1]?.id).toBe(a.frames[1]?.id);
  });

  test("two identical lines in one file stay two points", () => {
    const text = `${llamaLines[0]}\n${llamaLines[0]}\n`;
    const points = pointsOf(onlyRun(importBenchmarkFiles([{ path: "dup.jsonl", text }])));
    expect(points).toHaveLength(2);
    expect(at(points, 0).key).not.toBe(at(points, 1).key);
    expect(at(points, 0).key.split(":")[0]).toBe(at(points, 1).key.split(":")[0]);
  });

  test("the same file given twice is imported once", () => {
    const result = importBenchmarkFiles([LLAMA, { path: "copy.jsonl", text: LLAMA.text }]);
    expect(result.runs).toHaveLength(1);
    expect(result.problems).toEqual([
      { file: "copy.jsonl", line: 0, message: `same content as ${LLAMA.path}; imported once` },
    ]);
  });
});

describe("several files", () => {
  // A public sweep saved one file per level.
  const perLevel: ImportFile[] = llamaLines.map((line, i) => ({
    path: `sweep/rate-${[1, 2, 4, 8, 16, 4, 8][i]}-${i}.jsonl`,
    text: `${line}\n`,
  }));

  test("with a name → one run, deterministic in contents whatever the order or folder", () => {
    const a = importBenchmarkFiles(perLevel, { name: "llama sweep" });
    const run = onlyRun(a);
    expectValidFrames(run.frames);
    expect(run.name).toBe("llama sweep");
    expect(run.pointCount).toBe(7);
    // Natural order of base names ("rate-16" after "rate-8").
    expect(run.files).toEqual(
      ["rate-1-0", "rate-2-1", "rate-4-2", "rate-4-5", "rate-8-3", "rate-8-6", "rate-16-4"].map(
        (n) => `sweep/${n}.jsonl`,
      ),
    );
    expect(pointsOf(run).map((p) => p.requestRate)).toEqual([1, 2, 4, 4, 8, 8, 16]);
    expect(run.runKey).toBe(
      `import:${sha256Hex(
        perLevel
          .map((f) => sha256Hex(f.text))
          .sort()
          .join("\n"),
      ).slice(0, 32)}`,
    );
    expect(Math.max(...pointsOf(run).map((p) => Number(p.outputTokPerS ?? 0)))).toBe(
      4288.049348197696,
    );
    // ords increase across files (each file's lines follow the previous file's).
    const ords = pointsOf(run).map((p) => p.ord ?? -1);
    expect(ords).toEqual([...ords].sort((x, y) => x - y));
    expect(new Set(ords).size).toBe(7);

    const reversed = importBenchmarkFiles(
      [...perLevel]
        .reverse()
        .map((f) => ({ path: f.path.replace("sweep/", "/data/other/"), text: f.text })),
      {
        name: "llama sweep",
      },
    );
    expect(stringifyJson(onlyRun(reversed).frames)).toBe(stringifyJson(run.frames));
  });

  test("without a name → one run per file, named by base name", () => {
    const result = importBenchmarkFiles([LLAMA, NERDALERT]);
    expect(result.runs.map((r) => [r.name, r.format, r.pointCount])).toEqual([
      ["datacrunch_2024-12_llama_3_3_70b_online_output.jsonl", "sglang-bench-serving", 7],
      ["nerdalert_2025-05_benchmark_serving_results.jsonl", "vllm-bench-serve", 9],
    ]);
    for (const run of result.runs) expectValidFrames(run.frames);
  });

  test("files of different formats cannot be one named run", () => {
    expect(() => importBenchmarkFiles([LLAMA, NERDALERT], { name: "mixed" })).toThrow(
      BenchmarkImportError,
    );
  });
});

describe("frame splitting", () => {
  test("1200 results → benchmark frames of at most 500 points", () => {
    const text = Array.from({ length: 1200 }, (_, i) => pyJson(vllmRow(i))).join("\n");
    const run = onlyRun(importBenchmarkFiles([{ path: "big.jsonl", text }]));
    expectValidFrames(run.frames);
    const bench = run.frames.filter((f) => f.type === "run.benchmark");
    expect(bench.map((f) => (f.type === "run.benchmark" ? f.points.length : 0))).toEqual([
      500, 500, 200,
    ]);
    expect(DEFAULT_MAX_POINTS_PER_FRAME).toBe(500);
    expect(run.pointCount).toBe(1200);
    expect(new Set(pointsOf(run).map((p) => p.key)).size).toBe(1200);
    expect(run.frames.map((f) => f.type)).toEqual([
      "run.start",
      "run.benchmark",
      "run.benchmark",
      "run.benchmark",
      "run.end",
    ]);
  });

  test("big raw rows split by serialised size, each frame under the budget", () => {
    const text = Array.from({ length: 120 }, (_, i) =>
      pyJson(vllmRow(i, { notes: "x".repeat(20_000) })),
    ).join("\n");
    const run = onlyRun(importBenchmarkFiles([{ path: "fat.jsonl", text }]));
    expectValidFrames(run.frames);
    const bench = run.frames.filter((f) => f.type === "run.benchmark");
    expect(bench.length).toBeGreaterThan(2);
    for (const f of bench)
      expect(utf8ByteLength(stringifyJson(f))).toBeLessThanOrEqual(DEFAULT_MAX_FRAME_BYTES);
    expect(pointsOf(run)).toHaveLength(120);
  });

  test("a custom byte budget is exact: frames fill up to it and never exceed it", () => {
    const text = Array.from({ length: 60 }, (_, i) =>
      pyJson(vllmRow(i, { notes: "é".repeat(500 + i) })),
    ).join("\n");
    const run = onlyRun(
      importBenchmarkFiles([{ path: "small-frames.jsonl", text }], { maxFrameBytes: 8192 }),
    );
    expectValidFrames(run.frames);
    const sizes = run.frames
      .filter((f) => f.type === "run.benchmark")
      .map((f) => utf8ByteLength(stringifyJson(f)));
    expect(sizes.length).toBeGreaterThan(5);
    for (const s of sizes) expect(s).toBeLessThanOrEqual(8192);
    expect(pointsOf(run).map((p) => p.ord)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  test("one row larger than a frame: raw is shrunk and the problem reported", () => {
    const text = [pyJson(vllmRow(1)), pyJson(vllmRow(2, { blob: "y".repeat(900_000) }))].join("\n");
    const result = importBenchmarkFiles([{ path: "blob.jsonl", text }]);
    const run = onlyRun(result);
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 1);
    expect(p.raw).not.toHaveProperty("blob");
    expect(p.outputTokPerS).toBe(1002);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ file: "blob.jsonl", line: 2 });
    expect(result.problems[0]?.message).toMatch(/left out of raw: blob/);
  });

  test("tens of MB with --output-details imports quickly and drops the arrays", () => {
    const requests = 20_000;
    const line = pyJson({
      backend: "sglang",
      dataset_name: "random",
      request_rate: Number.POSITIVE_INFINITY,
      max_concurrency: 256,
      random_input_len: 1000,
      random_output_len: 1000,
      random_range_ratio: 1.0,
      duration: 600.0,
      completed: requests,
      total_input_tokens: requests * 1000,
      total_output_tokens: requests * 1000,
      total_output_tokens_retokenized: requests * 1000,
      output_throughput: 33333.3,
      mean_e2e_latency_ms: 7000.0,
      median_e2e_latency_ms: 6900.0,
      mean_ttft_ms: 300.0,
      concurrency: 250.1,
      input_lens: Array.from({ length: requests }, () => 1000),
      output_lens: Array.from({ length: requests }, () => 1000),
      ttfts: Array.from({ length: requests }, (_, i) => 0.3 + i * 1e-6),
      itls: Array.from({ length: requests }, () => [
        0.0123456, 0.0134567, 0.0145678, 0.0156789, 0.0167891, 0.0178912,
      ]),
      generated_texts: Array.from(
        { length: requests },
        () => "The quick brown fox jumps over the lazy dog. NaN Infinity",
      ),
      errors: Array.from({ length: requests }, () => ""),
    });
    const lines = Array.from({ length: 8 }, (_, i) =>
      line.replace('"max_concurrency": 256', `"max_concurrency": ${256 + i}`),
    );
    const text = lines.join("\n") + "\n";
    expect(text.length).toBeGreaterThan(20_000_000);
    const t0 = performance.now();
    const result = importBenchmarkFiles([{ path: "details.jsonl", text }]);
    const elapsedMs = performance.now() - t0;
    const run = onlyRun(result);
    expect(result.problems).toEqual([]);
    expectValidFrames(run.frames);
    expect(pointsOf(run).map((p) => p.concurrency)).toEqual([
      256, 257, 258, 259, 260, 261, 262, 263,
    ]);
    expect(at(pointsOf(run), 0).failed).toBe(0);
    for (const key of ["input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"])
      expect(at(pointsOf(run), 0).raw).not.toHaveProperty(key);
    expect(elapsedMs).toBeLessThan(20_000);
  });
});

describe("odd input", () => {
  test("a '__proto__' key stays an ordinary key; an over-long dataset name is cut to 200 chars", () => {
    const text = pyJson(vllmRow(1, { dataset: "d".repeat(300) })).replace(
      "{",
      '{"__proto__": "7", ',
    );
    const run = onlyRun(importBenchmarkFiles([{ path: "odd.json", text }]));
    expectValidFrames(run.frames);
    const p = at(pointsOf(run), 0);
    expect(Object.hasOwn(p.raw ?? {}, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(p.raw)).toBe(Object.prototype);
    expect(p.dataset).toHaveLength(200);
    const metadata = startOf(run).config?.metadata as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(metadata, "__proto__")?.value).toBe(7);
  });
});

describe("options", () => {
  test("invalid host, tags or limits are rejected before anything is built", () => {
    expect(() => importBenchmarkFiles([LLAMA], { host: "bad host!" })).toThrow(/invalid host/);
    expect(() => importBenchmarkFiles([LLAMA], { tags: [""] })).toThrow(/invalid tags/);
    expect(() => importBenchmarkFiles([LLAMA], { maxFrameBytes: MAX_FRAME_BYTES + 1 })).toThrow(
      /maxFrameBytes/,
    );
    expect(() => importBenchmarkFiles([LLAMA], { maxPointsPerFrame: 0 })).toThrow(
      /maxPointsPerFrame/,
    );
  });

  test("long names are cut to the protocol's 300 chars; no files → no runs", () => {
    const run = onlyRun(importBenchmarkFiles([LLAMA], { name: "n".repeat(400) }));
    expect(run.name).toHaveLength(300);
    expectValidFrames(run.frames);
    expect(importBenchmarkFiles([])).toEqual({ runs: [], problems: [] });
    expect(endOf(run).endedAt).toBeUndefined();
  });
});
