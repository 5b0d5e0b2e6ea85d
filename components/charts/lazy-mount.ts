"use client";

import { useCallback, useEffect, useState } from "react";

/** How far outside the viewport a chart is drawn ahead of being scrolled to (CSS margin). */
export const AHEAD_MARGIN = "50% 0px";
/** Charts mounted per idle slot in the background, after the ones in view. */
export const BACKGROUND_CHUNK = 2;

/**
 * Whether an element is in (or within {@link AHEAD_MARGIN} of) the viewport, through an
 * IntersectionObserver: `ref` goes on the element. Starts false (nothing is known before the
 * first layout); without IntersectionObserver (old browsers) it is always true.
 */
export function useInView(): { ref: (el: Element | null) => void; inView: boolean } {
  const [el, setEl] = useState<Element | null>(null);
  const [inView, setInView] = useState(false);
  // The one effect: the observer is a browser API outside React.
  useEffect(() => {
    if (!el || !hasObserver()) return;
    const io = new IntersectionObserver(
      (entries) => {
        const last = entries[entries.length - 1];
        if (last) setInView(last.isIntersecting);
      },
      { rootMargin: AHEAD_MARGIN },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [el]);
  const ref = useCallback((node: Element | null) => setEl(node), []);
  return { ref, inView: inView || (el !== null && !hasObserver()) };
}

function hasObserver(): boolean {
  return typeof IntersectionObserver === "function";
}

/** Runs `fn` when the browser is idle (or after `timeoutMs` at the latest); returns a cancel. */
function whenIdle(fn: () => void, timeoutMs: number): () => void {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback(fn, { timeout: timeoutMs });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 50);
  return () => clearTimeout(id);
}

/**
 * How many items of a long list may mount in the background: 0 at first (the items in view mount
 * through {@link useInView}), then {@link BACKGROUND_CHUNK} more per idle slot until `total`, so
 * a page of 200 charts draws the visible ones first and the rest without one long commit, and
 * every chart ends up drawn (find in page, data tables) without scrolling.
 */
export function useBackgroundBudget(total: number, idleTimeoutMs = 1_000): number {
  const [budget, setBudget] = useState(0);
  // Idle callbacks are outside React: this effect only schedules the next chunk.
  useEffect(() => {
    if (budget >= total) return;
    return whenIdle(() => setBudget((b) => Math.min(total, b + BACKGROUND_CHUNK)), idleTimeoutMs);
  }, [budget, total, idleTimeoutMs]);
  return budget;
}
