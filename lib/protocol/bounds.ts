import { z } from "zod";

/**
 * Bounds every stored time and integer of the wire protocol must respect, with the specific
 * error code a frame breaking them is rejected with.
 */

/** Earliest time a frame may carry: 2000-01-01T00:00:00Z, in epoch ms. */
export const MIN_EPOCH_MS = Date.UTC(2000, 0, 1);
/** First time a frame may no longer carry: 2100-01-01T00:00:00Z, in epoch ms. */
export const MAX_EPOCH_MS = Date.UTC(2100, 0, 1);

/** Largest value of a PostgreSQL int4 column. */
export const INT4_MAX = 2_147_483_647;

/** The `params.code` a zod issue carries when the frame must be rejected with `time_out_of_range`. */
export const TIME_OUT_OF_RANGE = "time_out_of_range" as const;

/** True when `ms` is an epoch-ms time inside [2000-01-01, 2100-01-01). */
export function isSaneEpochMs(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_EPOCH_MS && ms < MAX_EPOCH_MS;
}

/**
 * Why `ms` is not an epoch-ms time in the window, with a guess at the unit it was sent in
 * (seconds, microseconds, nanoseconds), e.g. "1736935200500000 is outside 2000-01-01..2100-01-01
 * (epoch ms); it looks like microseconds: divide by 1000".
 */
export function describeBadTime(ms: number): string {
  const base = `${ms} is outside 2000-01-01..2100-01-01 (epoch ms)`;
  if (isSaneEpochMs(ms * 1000)) return `${base}; it looks like seconds: multiply by 1000`;
  if (isSaneEpochMs(ms / 1000)) return `${base}; it looks like microseconds: divide by 1000`;
  if (isSaneEpochMs(ms / 1_000_000)) return `${base}; it looks like nanoseconds: divide by 1000000`;
  return base;
}

/** Epoch milliseconds (an integer) inside [2000-01-01, 2100-01-01); outside: `time_out_of_range`. */
export const epochMs = z
  .number()
  .int()
  .superRefine((ms, ctx) => {
    if (!isSaneEpochMs(ms))
      ctx.addIssue({
        code: "custom",
        message: describeBadTime(ms),
        params: { code: TIME_OUT_OF_RANGE },
        input: ms,
      });
  });
