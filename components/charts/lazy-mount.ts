"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/** How far outside the viewport a chart is drawn ahead of being scrolled to (CSS margin). */
export const AHEAD_MARGIN = "50% 0px";
/** Charts mounted in the first idle slot in the background, after the ones in view (later slots: as many as fit, {@link backgroundChunk}). */
export const BACKGROUND_CHUNK = 2;
/** At most this many charts in one background slot, however cheap they were. */
export const MAX_BACKGROUND_CHUNK = 24;
/** Room of a slot without an idle deadline (setTimeout fallback), ms: about a frame. */
const FALLBACK_ROOM_MS = 16;

/**
 * How many items the next background slot mounts: as many as fit its idle time `roomMs` at the
 * measured cost of one in the previous slot (`last`: its items and ms per item; null before the
 * first slot), at least {@link BACKGROUND_CHUNK} (what every slot mounted before, so a busy page
 * is never slower to finish than that), at most twice the previous slot's (an item already
 * mounted, e.g. in view, costs nothing, so one cheap slot must not make the next a long task) and
 * at most {@link MAX_BACKGROUND_CHUNK}; {@link BACKGROUND_CHUNK} before anything was measured.
 */
export function backgroundChunk(
  roomMs: number,
  last: { items: number; perItemMs: number } | null,
): number {
  if (last === null || !Number.isFinite(last.perItemMs)) return BACKGROUND_CHUNK;
  const cap = Math.min(MAX_BACKGROUND_CHUNK, 2 * Math.max(BACKGROUND_CHUNK, last.items));
  if (last.perItemMs <= 0) return cap;
  return Math.max(BACKGROUND_CHUNK, Math.min(cap, Math.floor(roomMs / last.perItemMs)));
}

/**
 * Whether an element is within {@link AHEAD_MARGIN} of the viewport (`inView`: time to draw it)
 * and whether any of it is in the viewport itself (`visible`: worth redrawing as live values
 * arrive), through IntersectionObservers: `ref` goes on the element. Both start false (nothing is
 * known before the first layout); without IntersectionObserver (old browsers) both are true.
 */
export function useInView(): {
  ref: (el: Element | null) => void;
  inView: boolean;
  visible: boolean;
} {
  const [el, setEl] = useState<Element | null>(null);
  const [inView, setInView] = useState(false);
  const [visible, setVisible] = useState(false);
  // The one effect: the observers are a browser API outside React.
  useEffect(() => {
    if (!el || !hasObserver()) return;
    const watch = (set: (on: boolean) => void, rootMargin: string) => {
      const io = new IntersectionObserver(
        (entries) => {
          const last = entries[entries.length - 1];
          if (last) set(last.isIntersecting);
        },
        { rootMargin },
      );
      io.observe(el);
      return io;
    };
    const ahead = watch(setInView, AHEAD_MARGIN);
    const seen = watch(setVisible, "0px");
    return () => {
      ahead.disconnect();
      seen.disconnect();
    };
  }, [el]);
  const ref = useCallback((node: Element | null) => setEl(node), []);
  const always = el !== null && !hasObserver();
  return { ref, inView: inView || always, visible: visible || always };
}

function hasObserver(): boolean {
  return typeof IntersectionObserver === "function";
}

/** Runs `fn` with the idle time left (ms) when the browser is idle (or after `timeoutMs` at the latest); returns a cancel. */
function whenIdle(fn: (roomMs: number) => void, timeoutMs: number): () => void {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback((deadline) => fn(deadline.timeRemaining()), {
      timeout: timeoutMs,
    });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(() => fn(FALLBACK_ROOM_MS), 50);
  return () => clearTimeout(id);
}

/**
 * How many items of a long list may mount in the background: 0 at first (the items in view mount
 * through {@link useInView}), then more per idle slot until `total`: {@link BACKGROUND_CHUNK} in
 * the first, then as many as fit the slot's idle time at the cost measured for the previous one
 * (from the budget's update to its commit; {@link backgroundChunk}). So a page of 200 charts
 * draws the visible ones first and the rest in commits of about one idle slot each (not one long
 * commit, nor a commit and a paint per two charts), and every chart ends up drawn (find in page,
 * data tables) without scrolling.
 */
export function useBackgroundBudget(total: number, idleTimeoutMs = 1_000): number {
  const [budget, setBudget] = useState(0);
  // The last slot: when it asked for its items and how many (refs: timing, not rendered state).
  const slot = useRef<{ atMs: number; items: number } | null>(null);
  const last = useRef<{ items: number; perItemMs: number } | null>(null);
  // Idle callbacks are outside React: this effect measures the slot just committed and
  // schedules the next one.
  useEffect(() => {
    if (slot.current) {
      const { atMs, items } = slot.current;
      last.current = { items, perItemMs: (performance.now() - atMs) / items };
      slot.current = null;
    }
    if (budget >= total) return;
    return whenIdle((roomMs) => {
      const items = Math.min(total - budget, backgroundChunk(roomMs, last.current));
      slot.current = { atMs: performance.now(), items };
      setBudget((b) => Math.min(total, b + items));
    }, idleTimeoutMs);
  }, [budget, total, idleTimeoutMs]);
  return budget;
}
