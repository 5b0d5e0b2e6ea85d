import { z } from "zod";

import { TIME_OUT_OF_RANGE } from "./bounds";
import { clientFrame, PROTOCOL_VERSION, type ClientFrame } from "./frames";
import { fastRunMetricsFrame } from "./metrics-fast";
import type { ErrorCode } from "./replies";
import { findTooDeep, MAX_JSON_DEPTH } from "./wire-json";

/** Outcome of validating one inbound value as a frame. */
export type FrameCheck =
  | { ok: true; frame: ClientFrame }
  | { ok: false; id: string | null; code: ErrorCode; message: string };

/**
 * Validates one parsed JSON value as a worker → server frame.
 * Never throws: a bad frame yields `{ ok: false }` with a specific code (`invalid_frame`,
 * `unsupported_version`, `too_deep` when `opts.truncated` says the wire parser cut a subtree of
 * the message and this frame holds it, `time_out_of_range` when a time is outside
 * 2000-01-01..2100-01-01) and a message naming the offending field(s): for point arrays the
 * index and field of the first bad point (e.g. `points.3.ts: …`), and the whole frame is rejected.
 */
export function checkFrame(value: unknown, opts: { truncated?: boolean } = {}): FrameCheck {
  const id = readId(value);
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      id,
      code: opts.truncated && findTooDeep(value) !== null ? "too_deep" : "invalid_frame",
      message: "a frame must be a JSON object",
    };
  }
  if (opts.truncated) {
    const at = findTooDeep(value);
    if (at !== null)
      return {
        ok: false,
        id,
        code: "too_deep",
        message: `${at}: nested deeper than ${MAX_JSON_DEPTH} levels (counting the message's own array)`,
      };
  }
  const v = (value as { v?: unknown }).v;
  if (v !== PROTOCOL_VERSION) {
    return {
      ok: false,
      id,
      code: "unsupported_version",
      message:
        v === undefined
          ? "missing protocol version 'v' (expected 1)"
          : `unsupported protocol version ${JSON.stringify(v)} (expected 1)`,
    };
  }
  if ((value as { type?: unknown }).type === "run.metrics") {
    // The hot path (1,000 points a frame): a narrower loop, zod only when it is not sure.
    const fast = fastRunMetricsFrame(value as Record<string, unknown>);
    if (fast) return { ok: true, frame: fast };
  }
  let parsed: ReturnType<typeof clientFrame.safeParse>;
  try {
    parsed = clientFrame.safeParse(value);
  } catch (err) {
    // A schema check that throws is a bug of ours, but it must not cost the sender its socket.
    return {
      ok: false,
      id,
      code: "invalid_frame",
      message: `frame could not be validated: ${(err as Error).message}`,
    };
  }
  if (parsed.success) return { ok: true, frame: parsed.data };
  const timeIssue = parsed.error.issues.find(
    (issue) => issue.code === "custom" && issue.params?.code === TIME_OUT_OF_RANGE,
  );
  if (timeIssue)
    return {
      ok: false,
      id,
      code: "time_out_of_range",
      message: describeIssues(new z.ZodError([timeIssue])),
    };
  return { ok: false, id, code: "invalid_frame", message: describeIssues(parsed.error) };
}

/** Reads a frame's `id` when it is a usable string, for error replies. */
function readId(value: unknown): string | null {
  if (value && typeof value === "object" && "id" in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === "string" && id.length > 0 && id.length <= 200) return id;
  }
  return null;
}

/** Formats zod issues as "path: message; path: message" (at most 5). */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "(frame)";
    return `${path}: ${issue.message}`;
  });
  if (error.issues.length > 5) parts.push(`and ${error.issues.length - 5} more`);
  return parts.join("; ");
}
