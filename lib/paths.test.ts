import { describe, expect, it } from "vitest";

import { comparePath, parseIdList, parseIds, parseRunListQuery, runsPath } from "./paths";

describe("paths", () => {
  it("builds short URLs without empty parameters", () => {
    expect(runsPath()).toBe("/runs");
    expect(runsPath({ kind: "benchmark", q: "", host: "kpro5", cursor: undefined })).toBe(
      "/runs?kind=benchmark&host=kpro5",
    );
    expect(comparePath([3, 1])).toBe("/compare?ids=3,1");
  });
  it("parses compare ids leniently", () => {
    expect(parseIds("1, 2,x,2,-3,0,4")).toEqual([1, 2, 4]);
    expect(parseIds(["5", "6"])).toEqual([5, 6]);
    expect(parseIds(undefined)).toEqual([]);
  });
  it("parses API id lists strictly: junk, zero, more than 12 or none is an error naming the problem", () => {
    expect(parseIdList("3,1,3")).toEqual({ ok: true, ids: [3, 1] });
    expect(parseIdList(["5", "6"])).toEqual({ ok: true, ids: [5, 6] });
    expect(parseIdList("10,abc")).toMatchObject({
      ok: false,
      message: expect.stringContaining('"abc"'),
    });
    expect(parseIdList("0")).toMatchObject({ ok: false });
    expect(parseIdList("")).toMatchObject({
      ok: false,
      message: expect.stringContaining("one or more"),
    });
    expect(
      parseIdList(Array.from({ length: 13 }, (_, i) => String(i + 1)).join(",")),
    ).toMatchObject({ ok: false, message: expect.stringContaining("at most 12") });
  });
  it("reads run filters and reports the ones it ignores", () => {
    expect(
      parseRunListQuery({
        kind: "benchmark",
        status: "stale",
        q: "  qwen ",
        tag: "",
        host: ["a", "b"],
      }),
    ).toEqual({
      query: { kind: "benchmark", status: "stale", q: "qwen", host: "a" },
      ignored: [],
    });
    expect(parseRunListQuery({ kind: "bogus", status: "done", tag: "x".repeat(101) })).toEqual({
      query: {},
      ignored: ["kind", "status", "tag"],
    });
  });
});
