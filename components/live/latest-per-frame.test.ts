import { describe, expect, test } from "vitest";

import { latestPerFrame, type FrameScheduler } from "./latest-per-frame";

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

describe("latestPerFrame", () => {
  test("messages between two frames fold into one write of the newest value per topic", () => {
    const { schedule, frame, pending } = manualFrames();
    const writes: Array<[string, number]> = [];
    const w = latestPerFrame<number>((t, v) => writes.push([t, v]), schedule);
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
    w.push("run:1", 4);
    frame();
    expect(writes.at(-1)).toEqual(["run:1", 4]);
    expect(pending()).toBe(0);
  });

  test("flush writes at once and cancels the frame; dispose drops what waits", () => {
    const { schedule, frame, pending } = manualFrames();
    const writes: number[] = [];
    const w = latestPerFrame<number>((_, v) => writes.push(v), schedule);
    w.push("run:1", 1);
    w.flush();
    expect(writes).toEqual([1]);
    expect(pending()).toBe(0);
    w.push("run:1", 2);
    w.dispose();
    frame();
    expect(writes).toEqual([1]);
  });
});
