import { describe, expect, it } from "vitest";

import { barLabelY } from "./bar-label";

// A bar for τ 8 that is 200 px tall with its top at y = 100: 25 px per τ, the bottom at y = 300.
const bar = { top: 100, height: 200, value: 8 };

describe("barLabelY", () => {
  it("puts the label above the bar when no line is near", () => {
    expect(barLabelY({ ...bar, lines: [] })).toBe(95);
    expect(barLabelY({ ...bar, lines: [4] })).toBe(95); // line at y = 200, far below the label
    expect(barLabelY({ ...bar, lines: [10] })).toBe(95); // line at y = 50, far above
  });
  it("moves the label above a baseline that would cross it", () => {
    // τ 8.4 is at y = 90, right through the default label (text box from y ≈ 82 to 101).
    const y = barLabelY({ ...bar, lines: [8.4] });
    expect(y).toBe(82);
    // Its box (down to the baseline + 6 px of descent and halo) ends above the line.
    expect(y + 6).toBeLessThan(90);
  });
  it("puts the label inside the bar when the space above is taken by lines", () => {
    // Lines at τ 8.2 (y = 95), 8.6 (y = 85) and 9 (y = 75): no spot above the bar is clear of them all.
    const y = barLabelY({ ...bar, lines: [8.2, 8.6, 9] });
    expect(y).toBeGreaterThan(bar.top);
    expect(y).toBeLessThan(bar.top + 20);
  });
  it("never leaves the plot at the top", () => {
    const y = barLabelY({ top: 8, height: 200, value: 8, lines: [8.2] });
    expect(y - 11).toBeGreaterThanOrEqual(0);
  });
});
