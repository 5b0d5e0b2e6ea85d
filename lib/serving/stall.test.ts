import { expect, test } from "vitest";

import { servingStallAfterS } from "./stall";

test("a serving run is silent after six missed scrapes, two minutes at least, a week at most", () => {
  expect(servingStallAfterS(5)).toBe(120);
  expect(servingStallAfterS(60)).toBe(360);
  expect(servingStallAfterS(10 * 86_400)).toBe(7 * 86_400);
});
