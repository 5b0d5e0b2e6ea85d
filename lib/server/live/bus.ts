import { EventEmitter } from "node:events";

/**
 * In-process fan-out of committed changes: the LiveHub (LISTEN on PostgreSQL) emits every topic
 * here, so server-side waiters — a worker socket waiting for its plan's decision, a long-poll
 * request — hear about changes made by any app instance. Kept on `globalThis` so server.ts and
 * Next's bundled route handlers share one emitter.
 */
const g = globalThis as typeof globalThis & { __pitwallBus?: EventEmitter };

/**
 * The process-wide bus; listen with `on("topic", (topic: string, renotice: boolean) => …)`
 * (`renotice`: no new commit, see LiveChange in lib/protocol/live.ts).
 */
export function liveBus(): EventEmitter {
  if (!g.__pitwallBus) {
    g.__pitwallBus = new EventEmitter();
    // Every waiting worker socket and long-poll request adds a listener.
    g.__pitwallBus.setMaxListeners(0);
  }
  return g.__pitwallBus;
}

/** Topic announcing that the plan with this client key was decided (or expired). */
export const planDecisionTopic = (planKey: string): string => `plan-decision:${planKey}`;

/**
 * Resolves true when `topic` is announced within `timeoutMs`, false on timeout or abort.
 * Subscribe *before* checking the current state, then check, to never miss a change.
 */
export function waitForTopic(
  topic: string,
  timeoutMs: number,
  signal?: AbortSignal,
): { promise: Promise<boolean>; cancel(): void } {
  const bus = liveBus();
  let cancel = () => undefined as void;
  const promise = new Promise<boolean>((resolve) => {
    const onTopic = (t: string) => {
      if (t === topic) done(true);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    const onAbort = () => done(false);
    function done(v: boolean) {
      clearTimeout(timer);
      bus.off("topic", onTopic);
      signal?.removeEventListener("abort", onAbort);
      resolve(v);
    }
    cancel = () => done(false);
    bus.on("topic", onTopic);
    signal?.addEventListener("abort", onAbort);
  });
  return { promise, cancel };
}
