import { describe, expect, test } from "vitest";

import { checkFrame } from "./validate";
import { findTooDeep, MAX_JSON_DEPTH, parseWireJson, TOO_DEEP } from "./wire-json";

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("parseWireJson", () => {
  test("leaves messages within the depth limit alone", () => {
    const text = `[${nested(MAX_JSON_DEPTH - 1)}]`;
    const { value, truncated } = parseWireJson(text);
    expect(truncated).toBe(false);
    expect(value).toEqual(JSON.parse(text));
  });

  test("cuts a 4,000-level subtree without recursion and keeps its frame's id and the frames beside it", () => {
    const deep = `{"v":1,"id":"deep","type":"run.start","run":"r","name":"n","kind":"training","config":${nested(4000)}}`;
    const good = `{"v":1,"id":"good","type":"hello"}`;
    const { value, truncated } = parseWireJson(
      `[${good},${deep},${good.replace("good", "good2")}]`,
    );
    expect(truncated).toBe(true);
    const frames = value as Array<Record<string, unknown>>;
    expect(frames.map((f) => f.id)).toEqual(["good", "deep", "good2"]);
    expect(findTooDeep(frames[0])).toBeNull();
    expect(findTooDeep(frames[1])).toMatch(/^config(\.a)+$/);
    const check = checkFrame(frames[1], { truncated });
    expect(check).toMatchObject({ ok: false, id: "deep", code: "too_deep" });
    expect(checkFrame(frames[0], { truncated }).ok).toBe(true);
  });

  test("the limit is exact whether the message parses first or is scanned: 64 levels stay, 65 are cut", () => {
    const frames = (levels: number) =>
      `[${Array.from({ length: 70 }, () => "{}").join(",")},${nested(levels)}]`; // > 64 '{': not the shortcut
    expect(parseWireJson(frames(MAX_JSON_DEPTH - 1)).truncated).toBe(false);
    const cut = parseWireJson(frames(MAX_JSON_DEPTH));
    expect(cut.truncated).toBe(true);
    expect(findTooDeep((cut.value as unknown[])[70])).toBe(
      Array(MAX_JSON_DEPTH - 1)
        .fill("a")
        .join("."),
    );
  });

  test("arrays and objects count alike on the parse-first path: 64 mixed levels stay, 65 are cut", () => {
    // Alternating arrays and objects, beside a 1,000-point run.metrics-like frame (> 64 '{').
    const mixed = (levels: number) =>
      Array.from({ length: levels }, (_, i) => (i % 2 ? '{"a":' : "[")).join("") +
      "1" +
      Array.from({ length: levels }, (_, i) => (i % 2 ? "}" : "]"))
        .reverse()
        .join("");
    const points = Array.from(
      { length: 1000 },
      (_, i) => `{"key":"k","step":${i},"value":${i / 7}}`,
    ).join(",");
    const message = (levels: number) =>
      `[{"v":1,"id":"m","type":"run.metrics","run":"r","points":[${points}]},${mixed(levels)}]`;
    const ok = parseWireJson(message(MAX_JSON_DEPTH - 1));
    expect(ok.truncated).toBe(false);
    expect(ok.value).toEqual(JSON.parse(message(MAX_JSON_DEPTH - 1)));
    expect(parseWireJson(message(MAX_JSON_DEPTH)).truncated).toBe(true);
  });

  test("brackets and quotes inside strings do not count as nesting", () => {
    const s = JSON.stringify({ s: `${"[{".repeat(200)}\\"${'"'.repeat(3)}` });
    const { value, truncated } = parseWireJson(s);
    expect(truncated).toBe(false);
    expect(value).toEqual(JSON.parse(s));
  });

  test("still reads Python's NaN and rejects text that is not JSON", () => {
    expect((parseWireJson('{"x": NaN}').value as { x: number }).x).toBeNaN();
    expect(() => parseWireJson(`${"[".repeat(5000)}`)).toThrow();
    expect(TOO_DEEP).toContain("\u0000");
  });
});

describe("checkFrame time bounds", () => {
  const base = { v: 1, id: "t1" };
  test.each([
    ["microseconds", 1736935200500000, /microseconds/],
    ["nanoseconds", 1736935200500000000, /nanoseconds/],
    ["seconds", 1736935200, /seconds/],
    ["year 2100", Date.UTC(2100, 0, 1), /outside 2000-01-01\.\.2100-01-01/],
  ])("a heartbeat time in %s is rejected with time_out_of_range", (_label, ts, hint) => {
    const check = checkFrame({ ...base, type: "heartbeat", ts });
    expect(check).toMatchObject({ ok: false, id: "t1", code: "time_out_of_range" });
    expect(!check.ok && check.message).toMatch(hint);
    expect(!check.ok && check.message).toMatch(/^ts: /);
  });

  test("the error names the index and field of the first bad point; the whole frame is rejected", () => {
    const points = [0, 1, 2, 3].map((i) => ({
      key: "loss",
      step: i,
      value: 1,
      ts: i >= 2 ? 1736935200500000 : 1736935200500,
    }));
    const check = checkFrame({ ...base, type: "run.metrics", run: "r", points });
    expect(check).toMatchObject({ ok: false, code: "time_out_of_range" });
    expect(!check.ok && check.message).toMatch(/^points\.2\.ts: /);
  });

  test("run.start in microseconds is rejected; in ms accepted", () => {
    const frame = { ...base, type: "run.start", run: "r", name: "n", kind: "training" };
    expect(checkFrame({ ...frame, startedAt: 1736935200500000 })).toMatchObject({
      ok: false,
      code: "time_out_of_range",
    });
    expect(checkFrame({ ...frame, startedAt: 1736935200500 }).ok).toBe(true);
  });

  test("an exit code beyond int4 is rejected before it reaches the column", () => {
    expect(
      checkFrame({ ...base, type: "run.end", run: "r", status: "failed", exitCode: 2 ** 31 }),
    ).toMatchObject({ ok: false, code: "invalid_frame" });
  });
});
