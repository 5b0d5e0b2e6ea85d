import { expect, test } from "vitest";

import { SharedAnswers, type SharedAnswersClock } from "./shared-answers";

// A manual clock: timers fire only when the test advances time.
function manualClock(): SharedAnswersClock & { advance(ms: number): void } {
  let t = 1_000;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 0;
  return {
    now: () => t,
    setTimer(fn, ms) {
      const id = ++next;
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimer(handle) {
      timers = timers.filter((x) => x.id !== handle);
    },
    advance(ms) {
      t += ms;
      const due = timers.filter((x) => x.at <= t);
      timers = timers.filter((x) => x.at > t);
      for (const x of due) x.fn();
    },
  };
}

/** A read model whose answer is its version: each computation reads the current version, resolved by hand. */
function harness(maxKeys = 8) {
  const clock = manualClock();
  let version = 0;
  const pending: Array<() => void> = [];
  const computed: string[] = [];
  let renotices = 0;
  const answers = new SharedAnswers<string>({
    compute: (key) => {
      const seen = version; // what the computation reads is fixed when it starts
      computed.push(key);
      return new Promise((resolve) => pending.push(() => resolve(`${key}@${seen}`)));
    },
    maxAgeMs: 1_000,
    refreshGapMs: 500,
    renotice: () => renotices++,
    maxKeys,
    onError: () => undefined,
    clock,
  });
  const settle = async () => {
    while (pending.length) pending.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    answers,
    clock,
    computed,
    settle,
    get renotices() {
      return renotices;
    },
    commit() {
      version++;
      answers.changed();
    },
  };
}

test("readers that accept an age share one computation and then the stored answer; fresh readers always compute", async () => {
  const h = harness();
  const a = h.answers.shared("p1", 1_000);
  const b = h.answers.shared("p1", 1_000);
  await h.settle();
  expect((await a).value).toBe("p1@0");
  expect((await b).value).toBe("p1@0");
  expect(h.computed).toEqual(["p1"]);
  h.clock.advance(400);
  const c = await h.answers.shared("p1", 1_000);
  expect(c).toEqual({ value: "p1@0", ageMs: 400 });
  expect(h.computed).toEqual(["p1"]);
  // Past the age limit a shared reader computes again; a fresh reader always does.
  h.clock.advance(700);
  const d = h.answers.shared("p1", 1_000);
  const e = h.answers.fresh("p1");
  await h.settle();
  expect((await d).value).toBe("p1@0");
  expect((await e).value).toBe("p1@0");
  expect(h.computed).toEqual(["p1", "p1", "p1"]);
  // A reader's own limit is honoured (0: nothing stored is old enough), the options' cap too.
  const f = h.answers.shared("p1", 0);
  await h.settle();
  await f;
  expect(h.computed.length).toBe(4);
  h.clock.advance(1_001);
  const g = h.answers.shared("p1", 60_000);
  await h.settle();
  await g;
  expect(h.computed.length).toBe(5);
  // Keys do not share.
  const other = h.answers.shared("p2", 1_000);
  await h.settle();
  expect((await other).value).toBe("p2@0");
});

test("an answer served after a change it lacks is refreshed once and announced; the next read has the change", async () => {
  const h = harness();
  const first = h.answers.shared("p1", 1_000);
  await h.settle();
  await first;
  h.clock.advance(100);
  h.commit(); // the notice of version 1 arrives
  h.clock.advance(50);
  // The refetch that notice caused gets the older answer (within the age), and a refresh is owed.
  expect((await h.answers.shared("p1", 1_000)).value).toBe("p1@0");
  expect(h.renotices).toBe(0);
  // More readers meanwhile add no work: one refresh, no earlier than 500 ms after the last start.
  await h.answers.shared("p1", 1_000);
  h.clock.advance(300);
  expect(h.computed).toEqual(["p1"]);
  h.clock.advance(100); // 500 ms after the first computation started
  expect(h.computed).toEqual(["p1", "p1"]);
  await h.settle();
  expect(h.renotices).toBe(1);
  // The readers refetch on the renotice and get the change, with nothing owed any more.
  expect((await h.answers.shared("p1", 1_000)).value).toBe("p1@1");
  h.clock.advance(2_000);
  await h.settle();
  expect(h.renotices).toBe(1);
  expect(h.computed.length).toBe(2);
});

test("no change since an answer's computation started: served without any refresh or renotice", async () => {
  const h = harness();
  h.commit();
  h.clock.advance(10);
  const first = h.answers.shared("p1", 1_000);
  await h.settle();
  await first;
  for (let i = 0; i < 9; i++) {
    h.clock.advance(100);
    expect((await h.answers.shared("p1", 1_000)).value).toBe("p1@1");
  }
  h.clock.advance(5_000);
  await h.settle();
  expect(h.computed).toEqual(["p1"]);
  expect(h.renotices).toBe(0);
});

test("changes during the refresh keep it owed: it refreshes again and announces once caught up", async () => {
  const h = harness();
  const first = h.answers.shared("p1", 1_000);
  await h.settle();
  await first;
  h.commit();
  await h.answers.shared("p1", 1_000); // owed: lacks version 1
  h.clock.advance(500); // refresh starts, reading version 1
  expect(h.computed.length).toBe(2);
  h.clock.advance(10);
  h.commit(); // version 2 while the refresh runs
  const joined = h.answers.shared("p1", 1_000); // joins the refresh, which lacks version 2
  await h.settle();
  expect((await joined).value).toBe("p1@1");
  expect(h.renotices).toBe(0);
  h.clock.advance(500);
  expect(h.computed.length).toBe(3);
  await h.settle();
  expect(h.renotices).toBe(1);
  expect((await h.answers.shared("p1", 1_000)).value).toBe("p1@2");
});

test("a failed computation reaches its readers and is not stored; idle keys beyond the cap are forgotten", async () => {
  const clock = manualClock();
  let fail = true;
  const answers = new SharedAnswers<number>({
    compute: async () => {
      if (fail) throw new Error("database down");
      return 7;
    },
    maxAgeMs: 1_000,
    refreshGapMs: 500,
    renotice: () => undefined,
    maxKeys: 2,
    onError: () => undefined,
    clock,
  });
  await expect(answers.shared("a", 1_000)).rejects.toThrow("database down");
  fail = false;
  expect((await answers.shared("a", 1_000)).value).toBe(7);
  await answers.shared("b", 1_000);
  await answers.shared("c", 1_000);
  expect(answers.size).toBe(2);
  answers.close();
  expect(answers.size).toBe(0);
});
