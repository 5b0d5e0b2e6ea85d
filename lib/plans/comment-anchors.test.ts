import { describe, expect, it } from "vitest";

import { anchorComments } from "./comment-anchors";

const v = (planId: number, ...lines: string[]) => ({ planId, body: lines.join("\n") });

describe("anchorComments", () => {
  it("follows an unchanged line to its new place, marks a changed one outdated", () => {
    const chain = [
      v(1, "# Plan", "warm up", "sweep C=1..64", "report"),
      v(2, "# Plan", "intro", "warm up", "sweep C=1..100", "report"),
    ];
    const out = anchorComments(chain, [
      { planId: 1, line: 2, lineText: "warm up" },
      { planId: 1, line: 3, lineText: "sweep C=1..64" },
      { planId: 2, line: 4, lineText: "sweep C=1..100" },
    ]);
    expect(out).toEqual([
      { line: 3, outdated: false, writtenOnVersion: 1 },
      { line: null, outdated: true, writtenOnVersion: 1 },
      { line: 4, outdated: false, writtenOnVersion: 2 },
    ]);
  });

  it("finds a moved line by its text, nearest to where it was, over several versions", () => {
    const chain = [
      v(1, "a", "upload", "b", "c"),
      v(2, "b", "c", "upload", "x"),
      v(3, "upload", "b", "c", "upload"),
    ];
    const [moved] = anchorComments(chain, [{ planId: 1, line: 2, lineText: "upload" }]);
    expect(moved?.outdated).toBe(false);
    expect(moved?.line).toBe(4);
  });

  it("keeps an outdated comment outdated even if its text comes back later", () => {
    const chain = [v(1, "a", "b"), v(2, "a"), v(3, "a", "b")];
    expect(anchorComments(chain, [{ planId: 1, line: 2, lineText: "b" }])[0]).toEqual({
      line: null,
      outdated: true,
      writtenOnVersion: 1,
    });
  });

  it("leaves out comments on versions not in the chain", () => {
    expect(anchorComments([v(1, "a")], [{ planId: 9, line: 1, lineText: "a" }])).toEqual([
      undefined,
    ]);
  });
});
