/**
 * JSON with the non-finite numbers Python writes.
 *
 * Python's `json.dumps` (and so SGLang's and vLLM's benchmark writers) emits bare `NaN`,
 * `Infinity` and `-Infinity` tokens, which `JSON.parse` rejects. JavaScript's `JSON.stringify`
 * turns the same values into `null`, silently losing them. The wire format therefore accepts both
 * the bare tokens and the strings "NaN" / "Infinity" / "-Infinity" wherever a number is expected,
 * and Pitwall itself always writes the strings.
 */

const SENTINEL = "\u0000pitwall-nonfinite:";

/** Where a bare NaN/Infinity/-Infinity token could be (a superset: it may match inside a string). */
const BARE_CANDIDATE = /(?:^|[:,[])\s*-?(?:NaN|Infinity)/;

/** Thrown by {@link parseLenientJson} with the 1-based line and column of the problem. */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/**
 * Parses JSON text that may contain bare `NaN`, `Infinity` and `-Infinity` (Python `json.dumps`)
 * and returns the value with those tokens as real JS numbers.
 * @throws JsonSyntaxError when the text is not JSON even with those tokens allowed.
 */
export function parseLenientJson(text: string): unknown {
  const patched = replaceBareNonFinite(text);
  try {
    return patched === text ? JSON.parse(text) : JSON.parse(patched, reviveNonFinite);
  } catch (err) {
    throw new JsonSyntaxError((err as Error).message);
  }
}

/**
 * Rewrites bare non-finite tokens outside strings into sentinel strings that
 * {@link reviveNonFinite} turns back into numbers. Returns the input unchanged when it has none
 * (the common case, which then parses at native speed).
 */
function replaceBareNonFinite(text: string): string {
  // A bare token is a value: it starts the text or follows ':', ',' or '[' (whitespace allowed).
  // The strings "NaN"/"Infinity" that JS clients send follow a quote, so they skip the scan below
  // (and the reviver, which costs as much as the parse). A match inside a string is only a false alarm.
  if (!BARE_CANDIDATE.test(text)) return text;
  let out = "";
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    let token: string | undefined;
    if (c === 0x4e /* N */ && text.startsWith("NaN", i)) token = "NaN";
    else if (c === 0x49 /* I */ && text.startsWith("Infinity", i)) token = "Infinity";
    else if (c === 0x2d /* - */ && text.startsWith("-Infinity", i)) token = "-Infinity";
    if (token) {
      out += text.slice(last, i) + JSON.stringify(SENTINEL + token);
      i += token.length - 1;
      last = i + 1;
    }
  }
  return out + text.slice(last);
}

function reviveNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === "string" && value.startsWith(SENTINEL)) {
    return Number(value.slice(SENTINEL.length));
  }
  return value;
}

/**
 * Serialises a value as JSON the way Pitwall writes it everywhere (wire frames, API responses):
 * non-finite numbers become the strings "NaN" / "Infinity" / "-Infinity", bigints become decimal
 * strings (they may exceed 2^53), Dates become ISO 8601 strings.
 */
export function stringifyJson(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) return String(v);
      if (typeof v === "bigint") return v.toString();
      return v;
    },
    space,
  );
}

/**
 * Returns a copy of `value` that survives `JSON.stringify` and JSONB: non-finite numbers become
 * their string names, bigints decimal strings. Used for stored raw rows.
 */
export function toJsonSafe(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJsonSafe(v);
    return out;
  }
  return value;
}
