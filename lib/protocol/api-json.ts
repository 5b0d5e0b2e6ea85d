/**
 * JSON as the HTTP API and /ws/live write it for browsers (docs/api.md, "Numbers that JSON cannot
 * hold"). JSON has no NaN or ±Infinity, and writing them as the strings "NaN"/"Infinity" made
 * every string field that happened to hold those words (a baseline named "NaN", a todo status
 * "Infinity") turn into a number in the browser. So a non-finite number is written as a tagged
 * object that no string can be mistaken for:
 *
 *   NaN → {"$num":"NaN"}   Infinity → {"$num":"Infinity"}   -Infinity → {"$num":"-Infinity"}
 *
 * and a data object that would look like a tag (its only key is `$num` or `$obj`, e.g. a run's
 * `config`) is escaped as `{"$obj": [[key, value]]}`, so the reader can tell them apart too.
 * Bigints are written as decimal strings (they may exceed 2^53), Dates as ISO 8601 strings.
 * {@link reviveApiJson} reverses exactly this and nothing else.
 */

const NON_FINITE: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  "-Infinity": Number.NEGATIVE_INFINITY,
};

function onlyKey(v: object): string | null {
  let key: string | null = null;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (key !== null) return null;
    key = k;
  }
  return key;
}

function replacer(_key: string, v: unknown): unknown {
  if (typeof v === "number") return Number.isFinite(v) ? v : { $num: String(v) };
  if (typeof v === "bigint") return v.toString();
  if (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    (Object.hasOwn(v, "$num") || Object.hasOwn(v, "$obj"))
  ) {
    const k = onlyKey(v);
    if (k === "$num" || k === "$obj") return { $obj: Object.entries(v) };
  }
  return v;
}

/** Serialises `value` as API JSON: non-finite numbers tagged, tag-like objects escaped (see the module doc). */
export function stringifyApiJson(value: unknown, space?: number): string {
  return JSON.stringify(value, replacer, space);
}

/**
 * `JSON.parse` reviver for API JSON: `{"$num":"NaN"|"Infinity"|"-Infinity"}` becomes the number and
 * `{"$obj": [[k, v]…]}` the escaped object; every string, however it reads, stays a string.
 */
export function reviveApiJson(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const k = onlyKey(value);
  if (k === "$num") {
    const name = (value as { $num: unknown }).$num;
    return typeof name === "string" && Object.hasOwn(NON_FINITE, name) ? NON_FINITE[name] : value;
  }
  if (k === "$obj") {
    const entries = (value as { $obj: unknown }).$obj;
    if (
      Array.isArray(entries) &&
      entries.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string")
    )
      return Object.fromEntries(entries as [string, unknown][]);
  }
  return value;
}

/** Parses API JSON text with {@link reviveApiJson}. @throws SyntaxError for invalid JSON. */
export function parseApiJsonText<T>(text: string): T {
  return JSON.parse(text, reviveApiJson) as T;
}
