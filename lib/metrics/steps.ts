/**
 * Training steps are 64-bit integers (the protocol sends big ones as decimal strings), so they are
 * handled as `bigint` here; a JS number loses exactness above 2^53.
 */

/** Smallest signed 64-bit integer, −2^63. */
export const STEP_MIN = -(2n ** 63n);
/** Largest signed 64-bit integer, 2^63 − 1. */
export const STEP_MAX = 2n ** 63n - 1n;

const WRAP = 2n ** 32n;
/** How far a backwards jump may be from exactly 2^32 and still read as a wrap: 2^24 (≈16.7 M steps). */
export const OVERFLOW_TOLERANCE = 2n ** 24n;

/** Step as bigint from a safe integer, a decimal string (`-?\d+`, leading zeros allowed) or a bigint; throws RangeError outside signed 64-bit or when not an integer. */
export function parseStep(v: number | string | bigint): bigint {
  let step: bigint;
  if (typeof v === "bigint") step = v;
  else if (typeof v === "number") {
    if (!Number.isSafeInteger(v))
      throw new RangeError(
        `step ${v} is not a safe integer (send steps beyond 2^53 as decimal strings)`,
      );
    step = BigInt(v);
  } else if (typeof v === "string") {
    const m = /^(-?)0*(\d+)$/.exec(v);
    // Checking the digit count first keeps a megabyte of digits from reaching BigInt().
    if (!m || m[2]!.length > 19)
      throw new RangeError(
        `step ${JSON.stringify(v.slice(0, 40))} is not a signed 64-bit decimal integer`,
      );
    step = BigInt(`${m[1]}${m[2]}`);
  } else {
    throw new RangeError(`step of type ${typeof v} is not an integer`);
  }
  if (step < STEP_MIN || step > STEP_MAX)
    throw new RangeError(`step ${step} is outside the signed 64-bit range`);
  return step;
}

/** True when prev → next goes backwards by 2^32 ± 2^24 (inclusive): a 32-bit step counter wrapped, not a resume from an older checkpoint. */
export function isCounterOverflow(prev: bigint, next: bigint): boolean {
  // An unsigned wrap 4294967290 → 5 drops by 2^32 − 11; a signed one 2147483647 → −2147483648 by
  // 2^32 − 1. The drop is short of 2^32 by the steps taken between the two reports, so the
  // tolerance bounds how many steps may pass unseen (16.7 M); an ordinary resume (5000 → 4000)
  // drops by far less. The tolerance is symmetric, as specified, though a pure wrap never exceeds 2^32.
  const drop = prev - next;
  const diff = drop - WRAP;
  return (diff < 0n ? -diff : diff) <= OVERFLOW_TOLERANCE;
}

/** A bigint step as a number when exact, else its decimal string. */
export function stepValue(step: bigint): number | string {
  return step >= BigInt(Number.MIN_SAFE_INTEGER) && step <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(step)
    : step.toString();
}
