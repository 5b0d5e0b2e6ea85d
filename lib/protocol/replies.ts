import { z } from "zod";

import { planDecisionFrame } from "./agent-frames";
import { PROTOCOL_VERSION } from "./primitives";

/**
 * Pitwall wire protocol v1, server → worker: acks, per-frame errors with their codes, and plan
 * decisions. Documented in docs/protocol.md (the error table lists every code).
 */

/** Error codes the server sends in `error` frames and per-frame HTTP results. */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_frame",
  "unsupported_version",
  "unknown_run",
  "frame_too_large",
  "batch_too_large",
  "unauthorized",
  "forbidden",
  "internal",
  "internal_error",
  "too_deep",
  "time_out_of_range",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Server → worker: the listed frame ids are committed (or were already). */
export const ackFrame = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  type: z.literal("ack"),
  ids: z.array(z.string()),
});

/** Server → worker: a frame was rejected; `id` is null when the frame had no readable id. */
export const errorFrame = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  type: z.literal("error"),
  id: z.string().nullable(),
  code: z.enum(ERROR_CODES),
  message: z.string(),
});

/** Any server → worker frame. */
export const serverFrame = z.discriminatedUnion("type", [ackFrame, errorFrame, planDecisionFrame]);
export type AckFrame = z.infer<typeof ackFrame>;
export type ErrorFrame = z.infer<typeof errorFrame>;
export type ServerFrame = z.infer<typeof serverFrame>;
