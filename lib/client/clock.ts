/**
 * Time for the worker SDK, injectable so tests of backoff, rate limits and timeouts need no real
 * waiting (STYLE habit 7).
 */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds (or whenever a test clock decides), or early when `signal`
   * aborts (resolves, never rejects), so the waiter can stop holding the process open.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout` (which keeps the process alive until it fires or is aborted). */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
    }),
};

/** Reconnect backoff settings, all in milliseconds except `factor`. */
export interface BackoffOptions {
  /** Delay ceiling before the first retry (default 250 ms). */
  initialMs?: number;
  /** Largest delay ceiling (default 30 s). */
  maxMs?: number;
  /** Growth of the ceiling per failed attempt (default 2). */
  factor?: number;
}

/**
 * Delay in ms before reconnect attempt `attempt` (0 = first retry): exponential growth of a
 * ceiling `min(maxMs, initialMs · factor^attempt)`, with "equal jitter": a uniform pick in
 * [ceiling/2, ceiling], so many workers restarted together spread out but none hammers the
 * server with near-zero delays. `random` returns a number in [0, 1).
 */
export function backoffDelayMs(
  attempt: number,
  opts: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initialMs = opts.initialMs ?? 250;
  const maxMs = opts.maxMs ?? 30_000;
  const factor = opts.factor ?? 2;
  const ceiling = Math.min(maxMs, initialMs * Math.pow(factor, Math.max(0, attempt)));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
