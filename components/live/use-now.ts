"use client";

import { createContext, useContext, useSyncExternalStore } from "react";

/**
 * A shared wall clock for relative times ("12 s ago") without an effect per component: one
 * interval ticks while anything listens. During hydration the server's render time is used (from
 * {@link ServerNowContext}) so the first client render matches the HTML exactly.
 */

const TICK_MS = 1000;
let current = typeof window === "undefined" ? 0 : Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === null) {
    current = Date.now();
    timer = setInterval(() => {
      current = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Epoch ms at which the server rendered the page (provided by the root providers). */
export const ServerNowContext = createContext<number>(0);

/**
 * The current time in epoch ms, re-rendering at most once per `granularityMs` (default 1 s).
 * Returns the server render time during hydration.
 */
export function useNow(granularityMs = TICK_MS): number {
  const serverNow = useContext(ServerNowContext);
  return useSyncExternalStore(
    subscribe,
    () => Math.floor(current / granularityMs) * granularityMs,
    () => Math.floor(serverNow / granularityMs) * granularityMs,
  );
}

const noopSubscribe = () => () => undefined;

/** False during the server render and hydration, true afterwards (for browser-only text such as the local time zone). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}
