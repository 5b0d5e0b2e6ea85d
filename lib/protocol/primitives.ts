import { z } from "zod";

import { epochMs, INT4_MAX } from "./bounds";

/** Building blocks shared by the wire protocol's frame schemas (lib/protocol/frames.ts, agent-frames.ts). */

export const PROTOCOL_VERSION = 1 as const;

/** Largest accepted frame (one ws message or one HTTP body), in bytes: 1 MiB. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * A number that may be non-finite. Accepts JSON numbers (including NaN/±Infinity after
 * lenient parsing) and the strings "NaN", "Infinity", "-Infinity" (what JS clients must send,
 * since `JSON.stringify(NaN)` is `null`).
 */
export const anyNumber = z.union([
  z.custom<number>((v) => typeof v === "number", { message: "expected a number" }),
  z.enum(["NaN", "Infinity", "-Infinity"]).transform((s) => Number(s)),
]);

/** Non-negative integer exactly representable as a JS number (counts of items, bytes). */
export const safeCount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/**
 * A 64-bit training step: a safe JS integer, or a decimal string for values beyond 2^53
 * (Python ints serialise as bare numbers; JS clients send strings for big steps).
 */
export const step64 = z.union([
  z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
  // One refine (not regex + refine): zod runs later checks even after a failed one, and BigInt()
  // throws on text that is not an integer.
  z
    .string()
    .refine(
      (v) => /^-?\d{1,19}$/.test(v) && BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n,
      "expected an integer step within the signed 64-bit range",
    ),
]);
/** Counter/gauge names like `s3.uploaded`, `disk.freeBytes`. */
export const counterName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z][A-Za-z0-9_.\-/]*$/, "counter names use letters, digits, '.', '_', '-', '/'");
/** Metric keys like `loss`, `train/loss`, `eval/accuracy`, `tau`. */
export const metricKey = z.string().min(1).max(200);

/** Non-negative integer that fits a Postgres int4. */
export const nonNegInt = z.number().int().nonnegative().max(INT4_MAX);
/** Epoch milliseconds within the sane window of lib/protocol/bounds.ts. */
export { epochMs };
/** Client-chosen stable key (run key, point key): printable, at most 200 chars. */
export const clientKey = z.string().min(1).max(200);
export const hostName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "host names use letters, digits, '.', '_' and '-'");

export const base = {
  v: z.literal(PROTOCOL_VERSION),
  /** Client message id; the server deduplicates on it (per host) and acks it once committed. */
  id: z.string().min(1).max(200),
};
