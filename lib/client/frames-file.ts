import { createHash } from "node:crypto";

import { parseLenientJson } from "@/lib/protocol";

/** One frame read from a file: its position (1-based line for JSON lines, else null) and value. */
export interface FileFrame {
  /** 0-based position among the frames of the file. */
  index: number;
  /** 1-based line number (JSON lines), or null for a JSON array / single object. */
  line: number | null;
  frame: Record<string, unknown>;
}

/** A part of the file that is not a frame. */
export interface FileProblem {
  line: number | null;
  message: string;
}

/**
 * Reads frames for `pitwall push`: a JSON array of frames, a single frame object, or JSON lines
 * (one frame, or an array of frames, per line; blank lines skipped). Bare NaN/±Infinity are allowed (Python's
 * `json.dumps`). Frames without `v` get `v: 1`; frames without `id` get
 * `push-<sha256 of the file, 16 hex>-<index>`, so pushing the same file twice changes nothing.
 * Never throws: unreadable lines and non-objects come back as problems.
 */
export function readFramesFile(text: string): { frames: FileFrame[]; problems: FileProblem[] } {
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const frames: FileFrame[] = [];
  const problems: FileProblem[] = [];
  const add = (value: unknown, line: number | null) => {
    const index = frames.length + problems.length;
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      problems.push({ line, message: `frame ${index + 1} is not a JSON object` });
      return;
    }
    const frame = { ...(value as Record<string, unknown>) };
    frame.v ??= 1;
    if (typeof frame.id !== "string" || frame.id === "") frame.id = `push-${digest}-${index}`;
    frames.push({ index, line, frame });
  };

  const trimmed = text.trim();
  if (trimmed === "") return { frames, problems };
  let whole: unknown;
  try {
    whole = parseLenientJson(trimmed);
  } catch (err) {
    // Not one JSON value: JSON lines, unless it was meant to be an array.
    if (trimmed.startsWith("[")) {
      problems.push({ line: null, message: `not a JSON array: ${(err as Error).message}` });
      return { frames, problems };
    }
    whole = undefined;
  }
  if (whole !== undefined) {
    if (Array.isArray(whole)) whole.forEach((v) => add(v, null));
    else add(whole, null);
    return { frames, problems };
  }
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = parseLenientJson(raw);
    } catch (err) {
      problems.push({ line: i + 1, message: `not JSON: ${(err as Error).message}` });
      return;
    }
    if (Array.isArray(value)) value.forEach((v) => add(v, i + 1));
    else add(value, i + 1);
  });
  return { frames, problems };
}
