/** A source of uniform random numbers in [0, 1). */
export type Rng = () => number;

/**
 * A small seeded generator (mulberry32), so a run with the same seed repeats exactly (the demo's
 * `--seed`, a failing fuzz or property-test seed replayed).
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
