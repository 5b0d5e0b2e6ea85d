import { describe, expect, test } from "vitest";
import { JsonSyntaxError, parseLenientJson, stringifyJson, toJsonSafe } from "./json";

describe("parseLenientJson", () => {
  test("reads Python's bare NaN, Infinity and -Infinity as numbers", () => {
    const v = parseLenientJson('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [1, NaN], "e": 2.5}') as Record<string, unknown>;
    expect(v.a).toBeNaN();
    expect(v.b).toBe(Infinity);
    expect(v.c).toBe(-Infinity);
    expect((v.d as number[])[1]).toBeNaN();
    expect(v.e).toBe(2.5);
  });

  test("leaves the same words inside strings alone, including escaped quotes", () => {
    const v = parseLenientJson('{"s": "NaN and Infinity", "t": "say \\"NaN\\"", "n": NaN}') as Record<string, unknown>;
    expect(v.s).toBe("NaN and Infinity");
    expect(v.t).toBe('say "NaN"');
    expect(v.n).toBeNaN();
  });

  test("rejects text that is not JSON even with those tokens allowed", () => {
    expect(() => parseLenientJson("{nope}")).toThrow(JsonSyntaxError);
    expect(() => parseLenientJson('{"a": NaNa}')).toThrow(JsonSyntaxError);
  });
});

describe("stringifyJson / toJsonSafe", () => {
  test("writes non-finite numbers as strings and bigints as decimal strings", () => {
    expect(stringifyJson({ a: NaN, b: -Infinity, c: 2n ** 64n, d: 1 })).toBe('{"a":"NaN","b":"-Infinity","c":"18446744073709551616","d":1}');
    expect(toJsonSafe({ x: [Infinity, { y: NaN }] })).toEqual({ x: ["Infinity", { y: "NaN" }] });
  });

  test("round-trips through the lenient parser and the protocol's string forms", () => {
    const text = stringifyJson({ v: Infinity });
    expect(text).toBe('{"v":"Infinity"}');
  });
});
