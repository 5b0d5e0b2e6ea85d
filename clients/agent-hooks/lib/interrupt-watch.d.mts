/** Types of interrupt-watch.mjs (plain JS so hooks run without a TypeScript loader). */
/** Scans transcript JSON lines for an Esc-interrupt nothing followed; its time (ms) or null. */
export function interruptIn(text: string, nowMs?: number): number | null;
/** Watches a transcript from its current end; `check()` returns an unfollowed interrupt's time (ms) or null. */
export function watchTranscript(
  fs: typeof import("node:fs"),
  file: string,
): { check(nowMs?: number): number | null };
