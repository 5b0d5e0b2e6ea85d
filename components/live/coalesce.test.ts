import { describe, expect, test } from "vitest";

import { coalescer, type CoalesceClock } from "./coalesce";

/** A manual clock: `advance(ms)` moves time and runs the timers that fall due, in order. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let nextId = 0;
  const clock: CoalesceClock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (h) => (timers = timers.filter((t) => t.id !== h)),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.fn();
    }
    now = end;
  };
  return { clock, advance, pending: () => timers.length };
}

describe("coalescer", () => {
  test("a burst of `runs` notices runs once at once and once at the window's end; other topics run every time", () => {
    const { clock, advance, pending } = manualClock();
    const calls: Array<[string, number]> = [];
    const c = coalescer((t) => calls.push([t, clock.now()]), { runs: 2000 }, clock);
    // A notice every 250 ms for 5 s (a busy worker).
    for (let i = 0; i < 20; i++) {
      c.notify("runs");
      c.notify("events");
      advance(250);
    }
    advance(5000);
    const runs = calls.filter(([t]) => t === "runs").map(([, at]) => at);
    expect(runs).toEqual([0, 2000, 4000, 6000]);
    expect(calls.filter(([t]) => t === "events")).toHaveLength(20);
    // The last notice (at 4750 ms) is covered by the trailing run at 6000 ms; nothing is left pending.
    expect(pending()).toBe(0);
  });

  test("a lone notice after a quiet window runs at once; dispose drops the pending trailing run", () => {
    const { clock, advance, pending } = manualClock();
    const calls: number[] = [];
    const c = coalescer(() => calls.push(clock.now()), { runs: 2000 }, clock);
    c.notify("runs");
    advance(3000);
    c.notify("runs");
    advance(100);
    c.notify("runs");
    expect(calls).toEqual([0, 3000]);
    expect(pending()).toBe(1);
    c.dispose();
    advance(5000);
    expect(calls).toEqual([0, 3000]);
  });
});
