import { expect, test } from "vitest";

import { SharedReads, type TopicRead, type TopicSink } from "./shared-reads";

/** SharedReads on a manual clock: a read starts when called and ends when the test resolves it. */
function harness(windowMs = 50) {
  let t = 1_000; // the clock starts long after any read
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let nextId = 0;
  const starts: number[] = [];
  const pending: Array<(r: TopicRead) => void> = [];
  const reads = new SharedReads({
    read: () => {
      starts.push(t);
      return new Promise((resolve) => pending.push(resolve));
    },
    windowMs,
    retryMs: 1_000,
    now: () => t,
    setTimer(fn, ms) {
      const id = ++nextId;
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimer(handle) {
      timers = timers.filter((x) => x.id !== handle);
    },
    onError: () => undefined,
  });
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    reads,
    starts,
    /** Moves the clock to `to` ms, firing the timers due on the way in order. */
    async advanceTo(to: number) {
      for (;;) {
        const due = timers.filter((x) => x.at <= to).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        t = due.at;
        due.fn();
        await flush();
      }
      t = to;
    },
    /** Resolves the oldest read in flight with value `data` at seq `seq`. */
    async finishRead(seq: number, data: unknown) {
      pending.shift()!({ seq, data });
      await flush();
    },
  };
}

const sink = (): TopicSink & { sent: string[] } => {
  const sent: string[] = [];
  return { sent, send: (text) => sent.push(text) };
};

test("a topic is read at most once per window while its reads are quick", async () => {
  const h = harness(50);
  const s = sink();
  h.reads.subscribe("run:1", s);
  await h.finishRead(1, { v: 1 }); // the first read, at once, done at once
  h.reads.changed("run:1", 2);
  h.reads.changed("run:1", 3);
  await h.advanceTo(1_049);
  expect(h.starts).toEqual([1_000]);
  await h.advanceTo(1_050);
  expect(h.starts).toEqual([1_000, 1_050]);
  await h.finishRead(3, { v: 3 });
  expect(s.sent.map((m) => JSON.parse(m).type)).toEqual(["snapshot", "delta"]);
});

test("after a slow read the next one starts twice that read's time after it (a read budget)", async () => {
  const h = harness(50);
  h.reads.subscribe("run:1", sink());
  // The first read takes 200 ms: changes arriving meanwhile are read 400 ms after it started.
  h.reads.changed("run:1", 2);
  await h.advanceTo(1_200);
  await h.finishRead(1, { v: 1 });
  await h.advanceTo(1_399);
  expect(h.starts).toEqual([1_000]);
  await h.advanceTo(1_400);
  expect(h.starts).toEqual([1_000, 1_400]);
  // Quick again (10 ms): back to the 50 ms window.
  await h.advanceTo(1_410);
  await h.finishRead(2, { v: 2 });
  h.reads.changed("run:1", 3);
  await h.advanceTo(1_449);
  expect(h.starts).toEqual([1_000, 1_400]);
  await h.advanceTo(1_450);
  expect(h.starts).toEqual([1_000, 1_400, 1_450]);
});
