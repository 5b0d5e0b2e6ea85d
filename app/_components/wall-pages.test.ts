import { describe, expect, it } from "vitest";

import { packWallPages } from "./wall-pages";

describe("packWallPages", () => {
  it("puts four short rows on one page even when another row is tall", () => {
    // Room 600 px: 100 + 100 + 250 + 100 = 550 fits; by the tallest row (250) only 2 would.
    expect(packWallPages([100, 100, 250, 100], 600, 12)).toEqual([0]);
  });

  it("starts a page where the next row would end below the room", () => {
    expect(packWallPages([200, 200, 200, 200, 200], 450, 12)).toEqual([0, 2, 4]);
    // Exactly the room fits (half a pixel of slack for fractional heights).
    expect(packWallPages([150, 150.4, 150, 150], 450, 12)).toEqual([0, 3]);
  });

  it("counts a row not measured yet as the tallest measured one", () => {
    expect(packWallPages([100, 300, undefined, undefined], 550, 12)).toEqual([0, 2, 3]);
  });

  it("guesses a quarter of the room before any row is measured", () => {
    expect(packWallPages(Array(9).fill(undefined), 400, 12)).toEqual([0, 4, 8]);
  });

  it("keeps at least one row per page, and at most maxPerPage", () => {
    expect(packWallPages([900, 50], 400, 12)).toEqual([0, 1]);
    expect(packWallPages(Array(25).fill(10), 1000, 12)).toEqual([0, 12, 24]);
  });

  it("answers one page for no rows", () => {
    expect(packWallPages([], 500, 12)).toEqual([0]);
  });
});
