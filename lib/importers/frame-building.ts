import { PROTOCOL_VERSION } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { sha256Hex, utf8ByteLength } from "./source-text";

/**
 * Frame-building pieces shared by the run builders (benchmark-run.ts, training-run.ts,
 * eval-run.ts): deterministic frame ids and size-bounded chunking. Pure: no I/O besides hashing.
 */

/** Deterministic frame id: `<run key>/<kind>/<first 16 hex of sha256 of stringifyJson(body)>`. */
export function frameId(runKey: string, kind: string, body: unknown): string {
  return `${runKey}/${kind}/${sha256Hex(stringifyJson(body)).slice(0, 16)}`;
}

/** A frame id of the length {@link frameId} gives, for measuring an envelope before the id is known. */
export function frameIdPlaceholder(runKey: string, kind: string): string {
  return `${runKey}/${kind}/${"0".repeat(16)}`;
}

/** Puts `id` right after `v`, the order every Pitwall frame uses. */
export function withId<T extends { v: typeof PROTOCOL_VERSION }>(
  body: T,
  id: string,
): T & { id: string } {
  const { v, ...rest } = body;
  return { v, id, ...rest } as T & { id: string };
}

/**
 * Serialised size in bytes of a frame envelope with an empty list under `listKey`
 * (`{v, id, type, run, [listKey]: []}`, id as long as {@link frameId} makes it): what a frame
 * costs besides its items.
 */
export function envelopeBytes(
  runKey: string,
  type: string,
  idKind: string,
  listKey: string,
): number {
  return utf8ByteLength(
    stringifyJson({
      v: PROTOCOL_VERSION,
      id: frameIdPlaceholder(runKey, idKind),
      type,
      run: runKey,
      [listKey]: [],
    }),
  );
}

/**
 * Splits items, in order, into chunks of at most `maxCount` items whose JSON (items plus the
 * separating commas) fits `budgetBytes`, each item serialised once with `stringifyJson`.
 * @throws Error when one item alone exceeds the budget (a result or point is at most a few KB).
 */
export function chunkBySize<T>(items: readonly T[], maxCount: number, budgetBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const item of items) {
    const bytes = utf8ByteLength(stringifyJson(item));
    if (bytes > budgetBytes)
      throw new Error(
        `one item is ${bytes} bytes serialised; the frame budget is ${budgetBytes} bytes`,
      );
    if (
      current.length > 0 &&
      (current.length >= maxCount || currentBytes + 1 + bytes > budgetBytes)
    ) {
      chunks.push(current);
      current = [];
      currentBytes = 0;
    }
    currentBytes += current.length === 0 ? bytes : bytes + 1;
    current.push(item);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
