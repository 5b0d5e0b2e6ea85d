/** The watched run's shape in the `live-browser` bench (scripts/bench/live-browser.ts). */

/** The run's 50 metric keys (`loss` first: the chart the pages watch). */
export const KEYS = Array.from({ length: 50 }, (_, i) =>
  i === 0
    ? "loss"
    : i === 1
      ? "lr"
      : i === 2
        ? "grad_norm"
        : `train/k${String(i).padStart(2, "0")}`,
);

/** Ranks writing the watched run, each on its own socket. */
export const RANKS = 8;

/** Steps per second the ranks write. */
export const RANK_HZ = 10;
