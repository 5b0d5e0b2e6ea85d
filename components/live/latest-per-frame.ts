/**
 * Latest-wins writes of pushed values, at most one per topic per animation frame. The server
 * pushes a run's value every shared-read window (50 ms) while ranks write at 10 Hz; each write
 * into the react-query cache redraws every chart of the run page. A page busy redrawing (a long
 * run with 50 keys on a loaded machine) would otherwise queue one full redraw per message and fall
 * ever further behind; here the messages that arrived during a redraw fold into one write of the
 * newest value, so what is drawn lags by at most one redraw.
 */

/** Schedules `fn` once (the next animation frame, or a timer where there is none); returns a cancel. */
export type FrameScheduler = (fn: () => void) => () => void;

/** Fallback delay (ms) when no animation frame comes: a hidden tab runs no frames. */
export const FRAME_FALLBACK_MS = 100;

/** The browser's next frame, or FRAME_FALLBACK_MS, whichever comes first. */
export const nextFrame: FrameScheduler = (fn) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  const raf = typeof requestAnimationFrame === "function" ? requestAnimationFrame(once) : null;
  const timer = setTimeout(once, FRAME_FALLBACK_MS);
  return () => {
    done = true;
    if (raf !== null) cancelAnimationFrame(raf);
    clearTimeout(timer);
  };
};

/** A writer: `push(topic, value)` for each message; `flush()` writes what waits now; `dispose()` drops it. */
export interface LatestPerFrame<T> {
  push(topic: string, value: T): void;
  flush(): void;
  dispose(): void;
}

/**
 * How a writer paces itself (injectable for tests): the clock (ms), a timer (returns a cancel),
 * and how many times a write's cost must pass from its start before the next write.
 */
export interface WriteBudget {
  now(): number;
  after(fn: () => void, ms: number): () => void;
  /** 2: a page spends at most about half its time drawing pushed values. */
  costFactor: number;
}

/** The browser's clock and timers, at most half the time spent writing. */
export const browserBudget: WriteBudget = {
  now: () => performance.now(),
  after: (fn, ms) => {
    const id = setTimeout(fn, ms);
    return () => clearTimeout(id);
  },
  costFactor: 2,
};

/**
 * Calls `write(topic, value)` with the newest value of each topic, at most once per scheduled
 * frame, and no sooner after the previous write than `costFactor` times what it cost: a write's
 * cost runs from its start to the first task after it (react-query hands the new value to React
 * in a task of its own, where the charts redraw), so a page whose redraw takes 150 ms waits 300
 * ms from the start of one to the next and stays responsive, instead of redrawing back to back.
 */
export function latestPerFrame<T>(
  write: (topic: string, value: T) => void,
  schedule: FrameScheduler = nextFrame,
  budget: WriteBudget = browserBudget,
): LatestPerFrame<T> {
  const waiting = new Map<string, T>();
  /** Cancels the frame (or the wait before it) the next write is scheduled for. */
  let cancel: (() => void) | null = null;
  /** Cancels the measure of the last write's cost while it is pending. */
  let measuring: (() => void) | null = null;
  /** Earliest time (budget clock) the next write may start. */
  let notBefore = -Infinity;
  const arm = () => {
    const wait = notBefore - budget.now();
    if (wait <= 0) cancel = schedule(flush);
    else cancel = budget.after(() => (cancel = schedule(flush)), wait);
  };
  const flush = () => {
    cancel?.();
    cancel = null;
    const due = [...waiting];
    waiting.clear();
    if (due.length === 0) return;
    const startedAt = budget.now();
    for (const [topic, value] of due) write(topic, value);
    measuring?.();
    measuring = budget.after(() => {
      measuring = null;
      notBefore = startedAt + budget.costFactor * (budget.now() - startedAt);
      if (waiting.size > 0 && cancel === null) arm();
    }, 0);
  };
  return {
    push(topic, value) {
      waiting.set(topic, value);
      // While the last write's cost is measured, the measure schedules the next one.
      if (cancel === null && measuring === null) arm();
    },
    flush,
    dispose() {
      cancel?.();
      cancel = null;
      measuring?.();
      measuring = null;
      waiting.clear();
    },
  };
}
