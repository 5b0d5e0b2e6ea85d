/**
 * Total serialisation of stored times for views and API responses. A stored time PostgreSQL
 * accepted but JavaScript cannot represent (e.g. year 57011 written before times were bounded:
 * the driver hands it over as an Invalid Date) must never make a page or API answer 500: it is
 * serialised as {@link INVALID_TIME}, which the format helpers (lib/format.ts) show as "invalid".
 */

/** Stands in for a stored time that is not a valid date. */
export const INVALID_TIME = "invalid";

/** ISO 8601 of `d`, or {@link INVALID_TIME} when `d` is an Invalid Date. Never throws. */
export function isoTime(d: Date): string {
  return Number.isNaN(d.getTime()) ? INVALID_TIME : d.toISOString();
}

/** {@link isoTime}, with null/undefined kept as null. Never throws. */
export function isoTimeOrNull(d: Date | null | undefined): string | null {
  return d ? isoTime(d) : null;
}
