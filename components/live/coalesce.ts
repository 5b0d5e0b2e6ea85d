/**
 * Per-topic coalescing of live `changed` notices on the client: the first notice of a topic runs
 * its action at once, later ones inside the topic's window fold into ONE trailing run at the
 * window's end. The server notifies `runs` on every ingest batch (up to ~20 notices/s with busy
 * workers), and each run refetched the whole list page; coalesced, a list page refetches at most
 * once per window and still shows the latest state within it.
 */

/** How often a list page refetches at most on live notices (ms). */
export const LIST_REFRESH_MS = 2_000;
/** Coalescing window per topic (ms); topics not listed run their action on every notice. */
export const COALESCE_MS: Readonly<Record<string, number>> = { runs: LIST_REFRESH_MS };

/** Clock and timers, injectable for tests. */
export interface CoalesceClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: CoalesceClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** A coalescer: `notify(topic)` for each notice; `dispose()` drops pending trailing runs. */
export interface Coalescer {
  notify(topic: string): void;
  dispose(): void;
}

/** Coalesces notices per topic before calling `action(topic)`, windows from `windows` (ms; 0 or absent: no coalescing). */
export function coalescer(
  action: (topic: string) => void,
  windows: Readonly<Record<string, number>> = COALESCE_MS,
  clock: CoalesceClock = realClock,
): Coalescer {
  const lastRunAt = new Map<string, number>();
  const pending = new Map<string, unknown>();
  const run = (topic: string) => {
    lastRunAt.set(topic, clock.now());
    action(topic);
  };
  return {
    notify(topic) {
      const windowMs = windows[topic] ?? 0;
      if (windowMs <= 0) return action(topic);
      if (pending.has(topic)) return;
      const last = lastRunAt.get(topic);
      const wait = last === undefined ? 0 : last + windowMs - clock.now();
      if (wait <= 0) return run(topic);
      pending.set(
        topic,
        clock.setTimeout(() => {
          pending.delete(topic);
          run(topic);
        }, wait),
      );
    },
    dispose() {
      for (const handle of pending.values()) clock.clearTimeout(handle);
      pending.clear();
    },
  };
}
