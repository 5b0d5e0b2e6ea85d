import { expect, test } from "vitest";

import { pageCount, pageNumbers } from "./pagination";

test("page links: ends, the current page and its neighbours, … for skipped runs", () => {
  expect(pageNumbers(1, 1)).toEqual([1]);
  expect(pageNumbers(1, 3)).toEqual([1, 2, 3]);
  expect(pageNumbers(5, 20)).toEqual([1, "…", 4, 5, 6, "…", 20]);
  expect(pageNumbers(1, 20)).toEqual([1, 2, "…", 20]);
  expect(pageNumbers(20, 20)).toEqual([1, "…", 19, 20]);
  // A single skipped page is shown instead of "…".
  expect(pageNumbers(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
});

test("page count", () => {
  expect(pageCount(0, 50)).toBe(1);
  expect(pageCount(50, 50)).toBe(1);
  expect(pageCount(51, 50)).toBe(2);
});
