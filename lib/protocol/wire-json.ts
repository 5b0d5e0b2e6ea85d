import { parseLenientJson } from "./json";

/**
 * JSON as it arrives on the wire (one `/ws/ingest` message, one `POST /api/ingest` body or any
 * other API body): lenient JSON ({@link parseLenientJson}) with a nesting limit. The text is
 * parsed first and the value's depth measured; only a message deeper than the limit (or one that
 * does not parse) has its text scanned.
 *
 * A subtree nested deeper than the limit is cut out of the text and replaced by the string
 * {@link TOO_DEEP}, so the frames beside it (and the offending frame's own `id`) still parse and
 * the offending frame alone is rejected with `too_deep`. Nothing here recurses on the input, so
 * no input can overflow the stack.
 */

/** Most arrays/objects nested inside one another in one message or body (a batch array counts as one level). */
export const MAX_JSON_DEPTH = 64;

/** Stands in for a subtree cut because it was nested deeper than {@link MAX_JSON_DEPTH}. */
export const TOO_DEEP = "\u0000pitwall-too-deep";

/** A parsed message: `value`, and whether some subtree of it was cut at the depth limit. */
export interface WireJson {
  value: unknown;
  /** True when at least one {@link TOO_DEEP} marker is somewhere in `value`. */
  truncated: boolean;
}

/**
 * Parses wire JSON with the depth limit (see the module comment).
 * @throws JsonSyntaxError when the text is not (lenient) JSON.
 */
export function parseWireJson(text: string, maxDepth = MAX_JSON_DEPTH): WireJson {
  if (text.length <= 2 * maxDepth || openersAtMost(text, maxDepth))
    return { value: parseLenientJson(text), truncated: false }; // cannot hold maxDepth + 1 levels
  // Parse first and measure the value (V8's JSON.parse does not recurse on the input): on a
  // 1,000-point frame (> 64 '{') the text scan below cost as much as the parse itself. Only a
  // message that does not parse, or parses deeper than the limit, takes the scan, which gives it
  // exactly the answer it always got.
  let parsed: unknown;
  let ok = false;
  try {
    parsed = parseLenientJson(text);
    ok = !deeperThan(parsed, maxDepth);
  } catch {
    // A subtree the scan cuts may be what made it unparsable: try the scan.
  }
  if (ok) return { value: parsed, truncated: false };
  const cut = cutTooDeep(text, maxDepth);
  return { value: parseLenientJson(cut ?? text), truncated: cut !== null };
}

/**
 * True when `value` nests arrays/objects more than `maxDepth` levels (the outermost counts as 1);
 * stops at the first too-deep one. Recursive, but never deeper than `maxDepth` + 1 calls, and it
 * allocates nothing (on a 1,000-point frame a stack of {value, depth} records and an
 * Object.values array per point cost about a fifth as much as the parse itself).
 */
function deeperThan(value: unknown, maxDepth: number): boolean {
  return value !== null && typeof value === "object" && exceeds(value, maxDepth);
}

/** True when `v` (an array or object) holds more than `levels` levels, itself included. */
function exceeds(v: object, levels: number): boolean {
  if (levels <= 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      if (c !== null && typeof c === "object" && exceeds(c, levels - 1)) return true;
    }
    return false;
  }
  for (const k in v) {
    // JSON.parse makes only own enumerable properties, so for-in sees them all. (An enumerable
    // property someone added to Object.prototype would be walked too: at worst a false "too
    // deep", which only sends the message through the exact text scan below.)
    const c: unknown = (v as Record<string, unknown>)[k];
    if (c !== null && typeof c === "object" && exceeds(c, levels - 1)) return true;
  }
  return false;
}

/**
 * Where the first {@link TOO_DEEP} marker sits in `value`, as a zod-like path ("config.a.b"),
 * or null when there is none. Only meaningful on values from {@link parseWireJson}, whose depth
 * is bounded, so the walk is bounded too.
 */
export function findTooDeep(value: unknown, path: string[] = []): string | null {
  if (value === TOO_DEEP) return path.length ? path.join(".") : "(frame)";
  if (value === null || typeof value !== "object") return null;
  for (const [k, v] of Object.entries(value)) {
    path.push(k);
    const found = findTooDeep(v, path);
    path.pop();
    if (found !== null) return found;
  }
  return null;
}

const STRUCTURAL = /["[\]{}]/g;

/** Returns `text` with every subtree deeper than `maxDepth` replaced by the TOO_DEEP string, or null when none is. */
function cutTooDeep(text: string, maxDepth: number): string | null {
  const re = new RegExp(STRUCTURAL.source, "g");
  let depth = 0;
  let out: string | null = null;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      re.lastIndex = stringEnd(text, i) + 1;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth <= maxDepth) continue;
      const end = closingEnd(text, i);
      out = (out ?? "") + text.slice(last, i) + JSON.stringify(TOO_DEEP);
      last = end;
      re.lastIndex = end;
      depth--;
    } else {
      depth--;
    }
  }
  return out === null ? null : out + text.slice(last);
}

/** True when `text` has at most `limit` '{' and '[' in all (strings included): counted with indexOf, which is far faster than the structural scan. */
function openersAtMost(text: string, limit: number): boolean {
  let n = 0;
  for (const c of ["{", "["]) {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) if (++n > limit) return false;
  }
  return true;
}

/** Index of the quote closing the string that opens at `start` (text.length when unterminated). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** Index just past the bracket closing the array/object that opens at `start` (text.length when unbalanced). */
function closingEnd(text: string, start: number): number {
  const re = new RegExp(STRUCTURAL.source, "g");
  re.lastIndex = start + 1;
  let depth = 1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const c = text.charCodeAt(m.index);
    if (c === 0x22) re.lastIndex = stringEnd(text, m.index) + 1;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (--depth === 0) return m.index + 1;
  }
  return text.length;
}
