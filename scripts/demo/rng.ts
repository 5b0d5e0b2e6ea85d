/** A source of uniform random numbers in [0, 1). */
export type Rng = () => number;

/**
 * A small seeded generator (mulberry32), so a demo started with the same `--seed` tells the same
 * story: same upload failures, same noise on the loss curve.
 */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample (Box–Muller) from `rng`. */
export function gaussian(rng: Rng): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** Formats simulated seconds as `h:mm` (e.g. `1:05` for 65 simulated minutes). */
export function simClock(simS: number): string {
  const minutes = Math.floor(simS / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;
}
