/**
 * Deltas between two JSON values, as the server pushes them on `/ws/live` (`delta` messages) and
 * the browser merges them into its react-query cache. Pure and generic: the server diffs the
 * previous and the new read of a topic (JSON values, except that non-finite numbers stay numbers;
 * they travel tagged, see lib/protocol/api-json.ts) and `applyPatch(old, diffJson(old, new))` rebuilds
 * `new` exactly, sharing every unchanged sub-tree with `old` (so React memos keep holding).
 *
 * Arrays are aligned three ways and the cheapest is kept: in place (changed items, new items
 * appended: a metric series growing, a progress sample added), shifted left (a capped list
 * dropping its oldest items) or shifted right (a newest-first list gaining items at the front).
 * Anything that does not align is replaced whole.
 */

/** Replace the value whole. */
export interface ReplacePatch {
  r: unknown;
}
/** Patch some keys of an object (`o`), delete others (`d`). */
export interface ObjectPatch {
  o?: Record<string, JsonPatch>;
  d?: string[];
}
/**
 * An array: `[...f, ...old.slice(x, x + l) with items patched by window index (a), ...p]`.
 */
export interface ArrayPatch {
  x: number;
  l: number;
  f?: unknown[];
  a?: Record<string, JsonPatch>;
  p?: unknown[];
}
/** One change to a JSON value. */
export type JsonPatch = ReplacePatch | ObjectPatch | ArrayPatch;

/** How far into the other array an alignment is looked for (items). */
const MAX_SHIFT = 64;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep equality of two JSON values (`undefined` object members count as absent). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  // NaN equals NaN here: a series holding NaN must not look changed on every read.
  if (
    a === b ||
    (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b))
  )
    return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    let na = 0;
    for (const k in a) {
      if (a[k] === undefined) continue;
      na++;
      if (!jsonEqual(a[k], b[k])) return false;
    }
    let nb = 0;
    for (const k in b) if (b[k] !== undefined) nb++;
    return na === nb;
  }
  return false;
}

/** The patch turning `a` into `b`, or undefined when they are equal (see {@link jsonEqual}). */
export function diffJson(a: unknown, b: unknown): JsonPatch | undefined {
  if (jsonEqual(a, b)) return undefined;
  if (isPlainObject(a) && isPlainObject(b)) return diffObject(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return diffArray(a, b) ?? { r: b };
  return { r: b };
}

function diffObject(a: Record<string, unknown>, b: Record<string, unknown>): JsonPatch {
  const o: Record<string, JsonPatch> = {};
  const d: string[] = [];
  for (const k in b) {
    if (b[k] === undefined) continue;
    const sub = a[k] === undefined ? { r: b[k] } : diffJson(a[k], b[k]);
    if (sub) o[k] = sub;
  }
  for (const k in a) if (a[k] !== undefined && b[k] === undefined) d.push(k);
  // Every member replaced ({step, value} of a point that moved): the object itself is shorter.
  const changed = Object.values(o);
  if (changed.length > 0 && changed.every((sub) => "r" in sub)) {
    let kept = 0;
    for (const k in b) if (b[k] !== undefined && !(k in o)) kept++;
    if (kept === 0) return { r: b };
  }
  const patch: ObjectPatch = {};
  if (Object.keys(o).length) patch.o = o;
  if (d.length) patch.d = d;
  return patch;
}

function indexOfEqual(list: readonly unknown[], value: unknown, limit: number): number {
  const end = Math.min(list.length, limit);
  for (let i = 0; i < end; i++) if (jsonEqual(list[i], value)) return i;
  return -1;
}

/**
 * Aligns old[x..] with b[k..]; returns the patch, its cost (items sent or patched) and how many
 * items it sends whole (new ones, and kept ones whose patch replaces them).
 */
function alignAt(
  a: readonly unknown[],
  b: readonly unknown[],
  x: number,
  k: number,
): { patch: ArrayPatch; cost: number; whole: number } {
  const l = Math.max(0, Math.min(a.length - x, b.length - k));
  const items: Record<string, JsonPatch> = {};
  const added = k + (b.length - k - l);
  let cost = added;
  let whole = added;
  for (let i = 0; i < l; i++) {
    const sub = diffJson(a[x + i], b[k + i]);
    if (sub) {
      items[i] = sub;
      cost++;
      if ("r" in sub) whole++;
    }
  }
  const patch: ArrayPatch = { x, l };
  if (k > 0) patch.f = b.slice(0, k);
  if (cost > added) patch.a = items;
  if (k + l < b.length) patch.p = b.slice(k + l);
  return { patch, cost, whole };
}

function diffArray(a: readonly unknown[], b: readonly unknown[]): ArrayPatch | undefined {
  const candidates = [alignAt(a, b, 0, 0)];
  if (a.length > 0 && b.length > 0) {
    const dropped = indexOfEqual(a, b[0], MAX_SHIFT);
    if (dropped > 0) candidates.push(alignAt(a, b, dropped, 0));
    const added = indexOfEqual(b, a[0], MAX_SHIFT);
    if (added > 0) candidates.push(alignAt(a, b, 0, added));
  }
  const best = candidates.reduce((m, c) => (c.cost < m.cost ? c : m));
  // Sending half the items whole or more (each with its index): a plain replacement is about as
  // small and simpler. Items that all changed a little (50 series, each one new point) are
  // patched, not sent again.
  return best.whole * 2 >= b.length ? undefined : best.patch;
}

/**
 * Applies a patch made by {@link diffJson} to `value` without mutating it; unchanged sub-trees
 * are shared. A patch that does not fit the value's shape (an object patch on an array…) yields
 * the patch's own content where it can and leaves the rest as it was: callers detect such drift
 * by sequence numbers, never by shape.
 */
export function applyPatch<T>(value: T, patch: JsonPatch | undefined): T {
  if (patch === undefined) return value;
  if ("r" in patch) return patch.r as T;
  if ("x" in patch) {
    const old = Array.isArray(value) ? (value as unknown[]) : [];
    const window = old.slice(patch.x, patch.x + patch.l);
    if (patch.a)
      for (const [i, sub] of Object.entries(patch.a))
        window[Number(i)] = applyPatch(window[Number(i)], sub);
    return [...(patch.f ?? []), ...window, ...(patch.p ?? [])] as T;
  }
  const out: Record<string, unknown> = isPlainObject(value) ? { ...value } : {};
  if (patch.o) for (const [k, sub] of Object.entries(patch.o)) out[k] = applyPatch(out[k], sub);
  if (patch.d) for (const k of patch.d) delete out[k];
  return out as T;
}
