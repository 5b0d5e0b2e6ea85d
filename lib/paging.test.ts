import { describe, expect, it } from "vitest";

import { clampPage, pageAfterResize, pageBounds, pageCount } from "./paging";

describe("paging", () => {
  it("counts pages, one page at least", () => {
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(25, 25)).toBe(1);
    expect(pageCount(26, 25)).toBe(2);
    expect(pageCount(364, 20)).toBe(19);
  });
  it("clamps a page past the end to the last one (the rows shrank) and below 0 to the first", () => {
    expect(clampPage(7, 30, 25)).toBe(1);
    expect(clampPage(-1, 30, 25)).toBe(0);
    expect(clampPage(1, 30, 25)).toBe(1);
  });
  it("gives the rows of a page, the last one short", () => {
    expect(pageBounds(0, 364, 25)).toEqual({ from: 0, to: 25 });
    expect(pageBounds(14, 364, 25)).toEqual({ from: 350, to: 364 });
    expect(pageBounds(99, 364, 25)).toEqual({ from: 350, to: 364 });
    expect(pageBounds(0, 0, 25)).toEqual({ from: 0, to: 0 });
  });
  it("keeps the first visible row in view when the page size changes", () => {
    // Page 3 of 25 a page starts at row 75: at 50 a page that is page 1 (rows 50–99).
    expect(pageAfterResize(3, 25, 50)).toBe(1);
    expect(pageAfterResize(1, 50, 25)).toBe(2);
    expect(pageAfterResize(0, 25, 100)).toBe(0);
  });
});
