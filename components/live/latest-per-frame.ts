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

/** Calls `write(topic, value)` with the newest value of each topic, at most once per scheduled frame. */
export function latestPerFrame<T>(
  write: (topic: string, value: T) => void,
  schedule: FrameScheduler = nextFrame,
): LatestPerFrame<T> {
  const waiting = new Map<string, T>();
  let cancel: (() => void) | null = null;
  const flush = () => {
    cancel?.();
    cancel = null;
    const due = [...waiting];
    waiting.clear();
    for (const [topic, value] of due) write(topic, value);
  };
  return {
    push(topic, value) {
      waiting.set(topic, value);
      cancel ??= schedule(flush);
    },
    flush,
    dispose() {
      cancel?.();
      cancel = null;
      waiting.clear();
    },
  };
}
