import { describe, expect, test } from "vitest";

import { BACKGROUND_CHUNK, backgroundChunk, MAX_BACKGROUND_CHUNK } from "./lazy-mount";

describe("backgroundChunk: charts per background idle slot", () => {
  test("the first slot mounts the fixed first chunk", () => {
    expect(backgroundChunk(50, null)).toBe(BACKGROUND_CHUNK);
  });

  test("later slots fill the idle time at the measured cost per chart", () => {
    expect(backgroundChunk(49, { items: 8, perItemMs: 6 })).toBe(8);
    expect(backgroundChunk(30, { items: 8, perItemMs: 6 })).toBe(5);
  });

  test("never fewer than the first chunk, even when one chart costs more than the slot", () => {
    expect(backgroundChunk(50, { items: 4, perItemMs: 100 })).toBe(BACKGROUND_CHUNK);
    expect(backgroundChunk(0, { items: 4, perItemMs: 5 })).toBe(BACKGROUND_CHUNK);
  });

  test("at most twice the previous slot and at most MAX_BACKGROUND_CHUNK", () => {
    expect(backgroundChunk(50, { items: 2, perItemMs: 0.5 })).toBe(4);
    expect(backgroundChunk(50, { items: 3, perItemMs: 0 })).toBe(6);
    expect(backgroundChunk(50, { items: 20, perItemMs: 0.1 })).toBe(MAX_BACKGROUND_CHUNK);
    expect(backgroundChunk(50, { items: 3, perItemMs: Number.NaN })).toBe(BACKGROUND_CHUNK);
  });
});
