import Papa from "papaparse";
import { describe, expect, test } from "vitest";

import { parseExportQuery } from "@/lib/api/exports";
import type { BenchmarkPointView } from "@/lib/view-models";

import {
  columnNames,
  COMPARE_TABLE,
  EVAL_TABLE,
  METRIC_TABLE,
  POINT_TABLE,
  PROGRESS_JSON_TABLE,
  progressTable,
  type EvalSource,
  type MetricSource,
} from "./columns";
import { csvHeader, csvRows, exportStream, JSON_CLOSE, jsonOpen, jsonRows } from "./encode";

// The export writers without a database: CSV that papaparse reads back to the exact values
// (non-finite numbers, 64-bit steps, text with delimiters), formula-looking text neutralised but
// numbers untouched, JSON in Pitwall's encoding, and a stream that pulls batches only as read.

const parseCsv = (text: string) =>
  Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });

const metric = (key: string, step: bigint, value: number): MetricSource => ({
  key,
  step,
  value,
  ts: new Date(Date.UTC(2026, 10, 29, 9, 30, 0, 123)),
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

async function* batches<T>(...list: T[][]): AsyncGenerator<T[]> {
  for (const b of list) yield b;
}

function point(over: Partial<BenchmarkPointView>): BenchmarkPointView {
  return {
    key: "c1",
    ord: 0,
    scenario: "throughput",
    dataset: null,
    concurrency: 1,
    measuredConcurrency: null,
    requestRate: null,
    requestRateUnbounded: false,
    inputLen: 1000,
    outputLen: 1000,
    completed: 10,
    failed: 0,
    durationS: 12.5,
    requestThroughput: 0.8,
    outputTokPerS: 26.5,
    totalTokPerS: 53,
    ttftMsMean: null,
    ttftMsMedian: 80.25,
    ttftMsP99: null,
    tpotMsMean: null,
    tpotMsMedian: 37.7,
    tpotMsP99: null,
    itlMsMean: null,
    itlMsMedian: null,
    itlMsP99: null,
    e2eMsMean: null,
    e2eMsMedian: null,
    e2eMsP99: null,
    acceptLength: null,
    raw: { source: "x" },
    updatedAt: "2026-11-29T09:30:00.000Z",
    ...over,
  };
}

describe("CSV", () => {
  test("metric rows parse back to the exact values: NaN, ±Infinity, 64-bit steps, shortest round-trip doubles", () => {
    const rows = [
      metric("loss", 0n, 2.302585092994046),
      metric("loss", 1n, Number.NaN),
      metric("loss", 9_223_372_036_854_775_807n, Number.POSITIVE_INFINITY),
      metric("lr", -5n, Number.NEGATIVE_INFINITY),
      metric("lr", 7n, 1e-7),
    ];
    const text = csvHeader(METRIC_TABLE) + csvRows(METRIC_TABLE, rows);
    expect(text.startsWith("key,step,value,ts\r\n")).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    // One CRLF-terminated record per line: no blank record anywhere (strict readers such as Python's csv see one).
    expect(text.slice(0, -2).split("\r\n")).toHaveLength(1 + rows.length);
    expect(
      text
        .split("\r\n")
        .slice(0, -1)
        .every((line) => line.length > 0),
    ).toBe(true);
    expect(csvHeader(METRIC_TABLE)).toBe("key,step,value,ts\r\n");
    const parsed = parseCsv(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual(["key", "step", "value", "ts"]);
    expect(parsed.data.map((r) => r.step)).toEqual(["0", "1", "9223372036854775807", "-5", "7"]);
    expect(parsed.data.map((r) => r.value)).toEqual([
      "2.302585092994046",
      "NaN",
      "Infinity",
      "-Infinity",
      "1e-7",
    ]);
    expect(parsed.data.map((r) => Number(r.value))).toEqual([
      2.302585092994046,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      1e-7,
    ]);
    expect(parsed.data[0]!.ts).toBe("2026-11-29T09:30:00.123Z");
  });

  test("text with commas, quotes and line breaks is quoted; formula-looking text gets a leading ' but negative numbers do not", () => {
    const rows = [
      metric('train/loss, "smoothed"\nv2', 1n, -1.5),
      metric('=HYPERLINK("http://x")', 2n, -0),
      metric("-rate", 3n, -1e300),
    ];
    const parsed = parseCsv(csvRows(METRIC_TABLE, rows).replace(/^/, csvHeader(METRIC_TABLE)));
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.key)).toEqual([
      'train/loss, "smoothed"\nv2',
      '\'=HYPERLINK("http://x")',
      "'-rate",
    ]);
    expect(parsed.data.map((r) => r.value)).toEqual(["-1.5", "0", "-1e+300"]);
  });

  test("points: units in the column names, null as an empty cell, booleans as true/false, raw left out", () => {
    const names = columnNames(POINT_TABLE);
    expect(names).toContain("outputTokPerS");
    expect(names).toContain("ttftMsMedian");
    expect(names).toContain("durationS");
    expect(names).toContain("requestRateReqPerS");
    expect(names).toContain("acceptLengthTokPerStep");
    expect(names).not.toContain("raw");
    const parsed = parseCsv(
      csvHeader(POINT_TABLE) +
        csvRows(POINT_TABLE, [point({ requestRateUnbounded: true, ttftMsMean: Number.NaN })]),
    );
    const row = parsed.data[0]!;
    expect(row.outputTokPerS).toBe("26.5");
    expect(row.ttftMsMedian).toBe("80.25");
    expect(row.ttftMsMean).toBe("NaN");
    expect(row.ttftMsP99).toBe("");
    expect(row.dataset).toBe("");
    expect(row.requestRateUnbounded).toBe("true");
  });

  test("compare rows lead with the run's id, key and name", () => {
    expect(columnNames(COMPARE_TABLE).slice(0, 4)).toEqual(["runId", "runKey", "runName", "key"]);
    const parsed = parseCsv(
      csvHeader(COMPARE_TABLE) +
        csvRows(COMPARE_TABLE, [{ run: { id: 7, key: "k7", name: "TP8, MTP" }, point: point({}) }]),
    );
    expect(parsed.data[0]).toMatchObject({
      runId: "7",
      runKey: "k7",
      runName: "TP8, MTP",
      key: "c1",
      outputTokPerS: "26.5",
    });
  });

  test("evals carry the raw counts, tokens produced and τ = (accepted + steps) / steps", () => {
    const e: EvalSource = {
      key: "p1",
      checkpointStep: 4000n,
      checkpointLabel: null,
      checkpointUri: "s3://d/step-4000",
      promptId: "p1",
      category: "code",
      dataset: "humaneval",
      verifySteps: 200,
      acceptedTokens: 1100,
      draft: { blockSize: 16, topk: 8 },
      outputTokPerS: null,
      ts: new Date(0),
    };
    const parsed = parseCsv(
      csvHeader(EVAL_TABLE) + csvRows(EVAL_TABLE, [e, { ...e, key: "p2", draft: {} }]),
    );
    expect(parsed.data[0]).toMatchObject({
      verifySteps: "200",
      acceptedTokens: "1100",
      tokensProduced: "1300",
      tau: "6.5",
      draft: '{"blockSize":16,"topk":8}',
      checkpointStep: "4000",
    });
    expect(parsed.data[1]!.draft).toBe("");
  });

  test("progress: one column per counter name, empty where a report lacks it", () => {
    const table = progressTable(["disk.freeBytes", "s3.uploaded"]);
    expect(columnNames(table)).toEqual([
      "ts",
      "workerId",
      "bootId",
      "doneItems",
      "counters.disk.freeBytes",
      "counters.s3.uploaded",
    ]);
    const parsed = parseCsv(
      csvHeader(table) +
        csvRows(table, [
          {
            ts: new Date(0),
            workerId: "gpu0",
            bootId: "b1",
            done: 12,
            counters: { "s3.uploaded": 5 },
          },
        ]),
    );
    expect(parsed.data[0]).toMatchObject({
      doneItems: "12",
      "counters.s3.uploaded": "5",
      "counters.disk.freeBytes": "",
    });
  });
});

describe("JSON", () => {
  test("a document of head fields and rows: non-finite as strings, steps as numbers within 2^53 and strings beyond", () => {
    const text =
      jsonOpen({ run: { id: 1 }, data: "metrics" }) +
      jsonRows(METRIC_TABLE, [metric("loss", 3n, Number.NaN)], true) +
      jsonRows(METRIC_TABLE, [metric("loss", 2n ** 60n, Number.NEGATIVE_INFINITY)], false) +
      JSON_CLOSE;
    const doc = JSON.parse(text) as {
      run: unknown;
      data: string;
      rows: Array<Record<string, unknown>>;
    };
    expect(doc.run).toEqual({ id: 1 });
    expect(doc.data).toBe("metrics");
    expect(doc.rows).toEqual([
      { key: "loss", step: 3, value: "NaN", ts: "2026-11-29T09:30:00.123Z" },
      {
        key: "loss",
        step: "1152921504606846976",
        value: "-Infinity",
        ts: "2026-11-29T09:30:00.123Z",
      },
    ]);
  });

  test("an empty export is still a document; points keep raw; evals draft as an object; progress counters as an object", () => {
    expect(JSON.parse(jsonOpen({ data: "evals" }) + JSON_CLOSE)).toEqual({
      data: "evals",
      rows: [],
    });
    const p = JSON.parse(`[${jsonRows(POINT_TABLE, [point({})], true)}]`) as Array<
      Record<string, unknown>
    >;
    expect(p[0]!.raw).toEqual({ source: "x" });
    expect(p[0]!.outputTokPerS).toBe(26.5);
    const e = JSON.parse(
      `[${jsonRows(EVAL_TABLE, [{ key: "k", checkpointStep: null, checkpointLabel: "best", checkpointUri: null, promptId: "p", category: null, dataset: null, verifySteps: 4, acceptedTokens: 6, draft: { topk: 1 }, outputTokPerS: null, ts: new Date(0) }], true)}]`,
    ) as Array<Record<string, unknown>>;
    expect(e[0]).toMatchObject({
      draft: { topk: 1 },
      tau: 2.5,
      tokensProduced: 10,
      checkpointStep: null,
    });
    const g = JSON.parse(
      `[${jsonRows(PROGRESS_JSON_TABLE, [{ ts: new Date(0), workerId: "gpu1", bootId: "b", done: null, counters: { "s3.bytes": 1e12 } }], true)}]`,
    ) as Array<Record<string, unknown>>;
    expect(g[0]).toEqual({
      ts: "1970-01-01T00:00:00.000Z",
      workerId: "gpu1",
      bootId: "b",
      doneItems: null,
      counters: { "s3.bytes": 1e12 },
    });
  });
});

describe("exportStream", () => {
  test("writes the header, every non-empty batch and the closing, for both formats", async () => {
    const csv = await readAll(
      exportStream({
        format: "csv",
        table: METRIC_TABLE,
        jsonHead: {},
        batches: batches([metric("a", 1n, 1)], [], [metric("a", 2n, 2)]),
      }),
    );
    expect(parseCsv(csv).data.map((r) => r.step)).toEqual(["1", "2"]);
    const json = await readAll(
      exportStream({
        format: "json",
        table: METRIC_TABLE,
        jsonHead: { data: "metrics" },
        batches: batches([], [metric("a", 1n, 1)], [metric("a", 2n, 2)]),
      }),
    );
    expect((JSON.parse(json) as { rows: Array<{ step: number }> }).rows.map((r) => r.step)).toEqual(
      [1, 2],
    );
  });

  test("pulls batches only as the client reads (memory stays at about one batch)", async () => {
    let produced = 0;
    async function* many(): AsyncGenerator<MetricSource[]> {
      for (let i = 0; i < 100; i++) {
        produced++;
        yield [metric("k", BigInt(i), i)];
      }
    }
    const reader = exportStream({
      format: "csv",
      table: METRIC_TABLE,
      jsonHead: {},
      batches: many(),
    }).getReader();
    await reader.read(); // header
    await reader.read(); // first batch
    expect(produced).toBeLessThanOrEqual(3);
    await reader.cancel();
  });

  test("a failing read errors the stream instead of ending a short file cleanly", async () => {
    async function* failing(): AsyncGenerator<MetricSource[]> {
      yield [metric("k", 1n, 1)];
      throw new Error("connection lost");
    }
    await expect(
      readAll(
        exportStream({ format: "json", table: METRIC_TABLE, jsonHead: {}, batches: failing() }),
      ),
    ).rejects.toThrow("connection lost");
  });
});

describe("parseExportQuery", () => {
  const q = (s: string, opts?: Parameters<typeof parseExportQuery>[1]) =>
    parseExportQuery(new URLSearchParams(s), opts);

  test("data is required (unless defaulted) and checked; format defaults to csv", () => {
    expect(q("data=metrics")).toEqual({ ok: true, data: "metrics", format: "csv" });
    expect(q("data=evals&format=json")).toEqual({ ok: true, data: "evals", format: "json" });
    expect(q("")).toMatchObject({ ok: false, code: "invalid_export_data" });
    expect(q("data=logs")).toMatchObject({
      ok: false,
      code: "invalid_export_data",
      message: expect.stringContaining("points, metrics, evals, progress"),
    });
    expect(q("data=points&data=metrics")).toMatchObject({ ok: false, code: "invalid_export_data" });
    expect(q("data=points&format=xlsx")).toMatchObject({
      ok: false,
      code: "invalid_export_format",
    });
    expect(q("format=json", { defaultData: "points", allowed: ["points"] })).toEqual({
      ok: true,
      data: "points",
      format: "json",
    });
    expect(q("data=metrics", { defaultData: "points", allowed: ["points"] })).toMatchObject({
      ok: false,
      code: "invalid_export_data",
    });
  });
});
