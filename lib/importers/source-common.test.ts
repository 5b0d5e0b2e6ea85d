import { describe, expect, test } from "vitest";

import { engineFromBackend, mergeFacts, trimRawRow } from "./source-common";
import {
  baseName,
  countLines,
  iterateLines,
  naturalCompare,
  readJsonRecords,
  utf8ByteLength,
} from "./source-text";
import {
  coerceNumericString,
  meanLength,
  measuredMsOrNull,
  nonNegIntOrNull,
  parseRequestRate,
  parseZonelessDate,
} from "./source-values";

describe("lines and records", () => {
  test("iterateLines: LF, CRLF, BOM, trailing newline", () => {
    expect([...iterateLines("\uFEFFa\r\nb\n\nc")]).toEqual([
      { line: 1, text: "a" },
      { line: 2, text: "b" },
      { line: 3, text: "" },
      { line: 4, text: "c" },
    ]);
    expect([...iterateLines("x\n")].map((l) => l.text)).toEqual(["x", ""]);
    expect(countLines("x\n")).toBe(2);
    expect(countLines("")).toBe(1);
  });

  test("readJsonRecords: bare NaN/Infinity, problems per line, pretty-printed fallback", () => {
    const { records, problems } = readJsonRecords(
      "f.jsonl",
      '{"a": NaN, "b": -Infinity}\n\nnope\n42\n{"c": "Infinity"}',
    );
    expect(records.map((r) => r.line)).toEqual([1, 5]);
    expect(Number.isNaN(records[0]?.row.a)).toBe(true);
    expect(records[0]?.row.b).toBe(Number.NEGATIVE_INFINITY);
    expect(records[1]?.row.c).toBe("Infinity");
    expect(problems.map((p) => [p.line, p.message.slice(0, 20)])).toEqual([
      [3, "not valid JSON: Unex"],
      [4, "expected a JSON obje"],
    ]);
    const pretty = readJsonRecords("p.json", '\n{\n  "completed": 1,\n  "duration": Infinity\n}\n');
    expect(pretty.problems).toEqual([]);
    expect(pretty.records).toHaveLength(1);
    expect(pretty.records[0]?.line).toBe(2);
    expect(pretty.records[0]?.row.duration).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("number conventions", () => {
  test("parseRequestRate", () => {
    expect(parseRequestRate(4)).toEqual({ requestRate: 4 });
    expect(parseRequestRate(Number.POSITIVE_INFINITY)).toEqual({
      requestRate: null,
      requestRateUnbounded: true,
    });
    expect(parseRequestRate("inf")).toEqual({ requestRate: null, requestRateUnbounded: true });
    expect(parseRequestRate("Infinity")).toEqual({ requestRate: null, requestRateUnbounded: true });
    expect(parseRequestRate("2.5")).toEqual({ requestRate: 2.5 });
    expect(parseRequestRate("trace")).toEqual({ requestRate: null });
    expect(parseRequestRate(Number.NaN)).toEqual({ requestRate: null });
    expect(parseRequestRate(null)).toEqual({ requestRate: null });
    expect(parseRequestRate(-1)).toEqual({ requestRate: null });
  });

  test("0.0 latency means not measured; NaN is kept", () => {
    expect(measuredMsOrNull(0)).toBeNull();
    expect(measuredMsOrNull(12.5)).toBe(12.5);
    expect(Number.isNaN(measuredMsOrNull(Number.NaN))).toBe(true);
    expect(measuredMsOrNull("12")).toBeNull();
  });

  test("integers, means, numeric strings", () => {
    expect(nonNegIntOrNull(3)).toBe(3);
    expect(nonNegIntOrNull(3.5)).toBeNull();
    expect(nonNegIntOrNull(-1)).toBeNull();
    expect(nonNegIntOrNull("3")).toBeNull();
    expect(meanLength(152612, 300)).toBe(509);
    expect(meanLength(100, 0)).toBeNull();
    expect(meanLength(null, 3)).toBeNull();
    expect(coerceNumericString("1000")).toBe(1000);
    expect(coerceNumericString("0.88")).toBe(0.88);
    expect(coerceNumericString("-2")).toBe(-2);
    expect(coerceNumericString("1e3")).toBe(1000);
    for (const s of ["007", "1.2.3", "", "inf", "NaN", " 1", "0x10", "4xL40S"])
      expect(coerceNumericString(s)).toBe(s);
  });
});

describe("raw rows and config facts", () => {
  test("trimRawRow drops per-request and long arrays, keeps order and small lists", () => {
    const row = {
      a: 1,
      ttfts: [0.1],
      details: { errors: [] },
      small: [1, 2, 3],
      long: Array(300).fill(0),
      server_info: { big: true },
      z: null,
    };
    expect(trimRawRow(row, { server_info: { version: "x" } })).toEqual({
      a: 1,
      small: [1, 2, 3],
      server_info: { version: "x" },
      z: null,
    });
    expect(Object.keys(trimRawRow(row))).toEqual(["a", "small", "server_info", "z"]);
  });

  test("mergeFacts: uniform values kept, differing ones listed, nested objects merged", () => {
    expect(
      mergeFacts([
        { model: "m", dataset: "random", meta: { tp: 1, gpu: "A" }, only: 1 },
        { model: "m", dataset: "sharegpt", meta: { tp: 1, gpu: "B" } },
        { model: "m", dataset: "random", meta: { tp: 1, gpu: "A" }, x: null },
      ]),
    ).toEqual({
      model: "m",
      dataset: ["random", "sharegpt"],
      meta: { tp: 1, gpu: ["A", "B"] },
      only: 1,
    });
  });

  test("engineFromBackend", () => {
    expect(engineFromBackend("sglang-oai-chat")).toBe("sglang");
    expect(engineFromBackend("vllm")).toBe("vllm");
    expect(engineFromBackend("trt")).toBe("tensorrt-llm");
    expect(engineFromBackend("openai-chat")).toBeNull();
    expect(engineFromBackend(null)).toBeNull();
  });
});

describe("misc helpers", () => {
  test("parseZonelessDate reads vLLM dates as UTC", () => {
    expect(parseZonelessDate("20250530-194738")).toBe(Date.UTC(2025, 4, 30, 19, 47, 38));
    expect(parseZonelessDate("2025-05-30 19:47:38")).toBe(Date.UTC(2025, 4, 30, 19, 47, 38));
    expect(parseZonelessDate("20250231-000000")).toBeNull();
    expect(parseZonelessDate("yesterday")).toBeNull();
    expect(parseZonelessDate(20250530)).toBeNull();
  });

  test("utf8ByteLength matches Buffer.byteLength", () => {
    for (const s of ["", "abc", "é", "€", "😀", "a😀é€", "\ud800"])
      expect(utf8ByteLength(s)).toBe(Buffer.byteLength(s, "utf8"));
  });

  test("naturalCompare and baseName", () => {
    expect(
      ["c16.jsonl", "c8.jsonl", "c1.jsonl", "c08.jsonl", "b.jsonl"].sort(naturalCompare),
    ).toEqual(["b.jsonl", "c1.jsonl", "c08.jsonl", "c8.jsonl", "c16.jsonl"]);
    expect(baseName("a/b/c.jsonl")).toBe("c.jsonl");
    expect(baseName("C:\\runs\\x.json")).toBe("x.json");
    expect(baseName("dir/")).toBe("dir");
  });
});
