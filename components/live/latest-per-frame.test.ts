import { describe, expect, test } from "vitest";

import { latestPerFrame, type FrameScheduler, type WriteBudget } from "./latest-per-frame";

/** A scheduler run by hand: `frame()` runs what waits for the next frame. */
function manualFrames() {
  let queued: Array<() => void> = [];
  const schedule: FrameScheduler = (fn) => {
    queued.push(fn);
    return () => (queued = queued.filter((f) => f !== fn));
  };
  const frame = () => {
    const due = queued;
    queued = [];
    due.forEach((f) => f());
  };
  return { schedule, frame, pending: () => queued.length };
}

/** A clock and timers run by hand: `advance(ms)` moves the clock and fires the timers due. */
function manualBudget(costFactor = 2) {
  let t = 0;
  let timers: Array<{ at: number; fn: () => void }> = [];
  const budget: WriteBudget = {
    now: () => t,
    after(fn, ms) {
      const timer = { at: t + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((x) => x !== timer));
    },
    costFactor,
  };
  const advance = (ms: number) => {
    const to = t + ms;
    for (;;) {
      const due = timers.filter((x) => x.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((x) => x !== due);
      t = Math.max(t, due.at);
      due.fn();
    }
    t = to;
  };
  return { budget, advance, spend: (ms: number) => (t += ms) };
}

/** A writer on manual frames and clock whose every write costs `costMs`, at twice the cost. */
function costlyWriter(costMs: number) {
  const { schedule, frame, pending } = manualFrames();
  const { budget, advance, spend } = manualBudget(2);
  const writes: number[] = [];
  const w = latestPerFrame<number>(
    (_, v) => {
      writes.push(v);
      spend(costMs);
    },
    schedule,
    budget,
  );
  return { w, writes, frame, pending, advance };
}

describe("latestPerFrame", () => {
  test("messages between two frames fold into one write of the newest value per topic", () => {
    const { schedule, frame, pending } = manualFrames();
    const writes: Array<[string, number]> = [];
    const { budget, advance } = manualBudget();
    const w = latestPerFrame<number>((t, v) => writes.push([t, v]), schedule, budget);
    w.push("run:1", 1);
    w.push("run:1", 2);
    w.push("run:2", 10);
    w.push("run:1", 3);
    expect(writes).toEqual([]);
    expect(pending()).toBe(1);
    frame();
    expect(writes).toEqual([
      ["run:1", 3],
      ["run:2", 10],
    ]);
    advance(0); // the write cost nothing: the next may go at the next frame
    w.push("run:1", 4);
    frame();
    expect(writes.at(-1)).toEqual(["run:1", 4]);
    expect(pending()).toBe(0);
  });

  test("flush writes at once and cancels the frame; dispose drops what waits", () => {
    const { schedule, frame, pending } = manualFrames();
    const writes: number[] = [];
    const w = latestPerFrame<number>((_, v) => writes.push(v), schedule, manualBudget().budget);
    w.push("run:1", 1);
    w.flush();
    expect(writes).toEqual([1]);
    expect(pending()).toBe(0);
    w.push("run:1", 2);
    w.dispose();
    frame();
    expect(writes).toEqual([1]);
  });

  test("after a costly write the next waits twice its cost from its start, then the next frame", () => {
    // Each write costs 150 ms (the redraw it causes runs before the first task after it).
    const { w, writes, frame, pending, advance } = costlyWriter(150);
    w.push("run:1", 1);
    frame(); // written at t=0, done at 150
    w.push("run:1", 2);
    expect(pending()).toBe(0); // its cost is not known yet
    advance(0); // measured: 150 ms, so not before t=300
    expect(pending()).toBe(0);
    w.push("run:1", 3);
    advance(149); // t=299
    expect(pending()).toBe(0);
    advance(1); // t=300: waits for the next frame now
    expect(pending()).toBe(1);
    frame();
    expect(writes).toEqual([1, 3]);
  });

  test("a cheap write leaves the pace at one per frame; dispose cancels a wait", () => {
    const { w, writes, frame, pending, advance } = costlyWriter(2);
    w.push("run:1", 1);
    frame();
    advance(0);
    advance(16); // a frame later: past 2 x 2 ms
    w.push("run:1", 2);
    expect(pending()).toBe(1);
    frame();
    expect(writes).toEqual([1, 2]);
    advance(0);
    w.push("run:1", 3); // within 4 ms of the last start: a wait
    expect(pending()).toBe(0);
    w.dispose();
    advance(100);
    expect(pending()).toBe(0);
    frame();
    expect(writes).toEqual([1, 2]);
  });
});
