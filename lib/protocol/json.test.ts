import { describe, expect, test } from "vitest";

import { JsonSyntaxError, parseLenientJson, stringifyJson, toJsonSafe } from "./json";

describe("parseLenientJson", () => {
  test("reads Python's bare NaN, Infinity and -Infinity as numbers", () => {
    const v = parseLenientJson(
      '{"a": NaN, "b": Infinity, "c": -Infinity, "d": [1, NaN], "e": 2.5}',
    ) as Record<string, unknown>;
    expect(v.a).toBeNaN();
    expect(v.b).toBe(Infinity);
    expect(v.c).toBe(-Infinity);
    expect((v.d as number[])[1]).toBeNaN();
    expect(v.e).toBe(2.5);
  });

  test("leaves the same words inside strings alone, including escaped quotes", () => {
    const v = parseLenientJson(
      '{"s": "NaN and Infinity", "t": "say \\"NaN\\"", "n": NaN}',
    ) as Record<string, unknown>;
    expect(v.s).toBe("NaN and Infinity");
    expect(v.t).toBe('say "NaN"');
    expect(v.n).toBeNaN();
  });

  test("finds bare tokens after any whitespace, at the top level and beside quoted ones", () => {
    expect(parseLenientJson("[\n  NaN,\t-Infinity\r\n]")).toEqual([NaN, -Infinity]);
    expect(parseLenientJson("  Infinity")).toBe(Infinity);
    expect(parseLenientJson('{"v":"NaN","w":[1,"Infinity"]}')).toEqual({
      v: "NaN",
      w: [1, "Infinity"],
    });
    expect(parseLenientJson('{"v":"NaN","w":NaN}')).toEqual({ v: "NaN", w: NaN });
  });

  test("rejects text that is not JSON even with those tokens allowed", () => {
    expect(() => parseLenientJson("{nope}")).toThrow(JsonSyntaxError);
    expect(() => parseLenientJson('{"a": NaNa}')).toThrow(JsonSyntaxError);
  });
});

describe("stringifyJson / toJsonSafe", () => {
  test("writes non-finite numbers as strings and bigints as decimal strings", () => {
    expect(stringifyJson({ a: NaN, b: -Infinity, c: 2n ** 64n, d: 1 })).toBe(
      '{"a":"NaN","b":"-Infinity","c":"18446744073709551616","d":1}',
    );
    expect(toJsonSafe({ x: [Infinity, { y: NaN }] })).toEqual({ x: ["Infinity", { y: "NaN" }] });
  });

  test("round-trips through the lenient parser and the protocol's string forms", () => {
    const text = stringifyJson({ v: Infinity });
    expect(text).toBe('{"v":"Infinity"}');
  });
});

describe("checkFrame never throws", () => {
  test("a step that is not an integer is an invalid_frame, not an exception", async () => {
    const { checkFrame } = await import("./validate");
    const check = checkFrame({
      v: 1,
      id: "m1",
      type: "run.metrics",
      run: "r",
      points: [{ key: "loss", step: "three", value: 1 }],
    });
    expect(check).toMatchObject({ ok: false, code: "invalid_frame" });
    const big = checkFrame({
      v: 1,
      id: "m2",
      type: "run.metrics",
      run: "r",
      points: [{ key: "loss", step: "99999999999999999999", value: 1 }],
    });
    expect(big).toMatchObject({ ok: false, code: "invalid_frame" });
    const ok = checkFrame({
      v: 1,
      id: "m3",
      type: "run.metrics",
      run: "r",
      points: [{ key: "loss", step: "9223372036854775807", value: 1 }],
    });
    expect(ok.ok).toBe(true);
  });
});
