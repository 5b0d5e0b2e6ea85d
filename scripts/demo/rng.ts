import type { Rng } from "@/lib/random";

export { seededRng, type Rng } from "@/lib/random";

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
