import type { JsonObject } from "./source-text";

/**
 * Value coercion with the writers' conventions, shared by every importer family: non-finite
 * numbers and their Python spellings ("nan", "inf"), 0.0 meaning "not measured", numeric strings,
 * request rates, zoneless dates. Pure functions.
 */

/** `value` when it is a JS number (NaN and ±Infinity included), else null. */
export function numberOrNull(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

/** `value` when it is a finite number, else null. */
export function finiteOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * A TTFT/TPOT/ITL statistic in ms. Both writers compute `np.mean(x or 0)`, so a metric that was
 * not measured (non-streaming backend, or every output one token long for TPOT) is written as
 * exactly 0.0: that becomes null. NaN/±Infinity are kept.
 */
export function measuredMsOrNull(value: unknown): number | null {
  return typeof value === "number" && value !== 0 ? value : null;
}

/** `value` when it is a non-negative safe integer (what the protocol's counts and lengths accept), else null. */
export function nonNegIntOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** `value` when it is a non-empty string, else null. */
export function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** A dataset name for a point: non-empty string cut to the protocol's 200 chars, else null. */
export function datasetOrNull(value: unknown): string | null {
  const s = stringOrNull(value);
  return s === null ? null : s.slice(0, 200);
}

/**
 * Sets `obj[key] = value` as an own enumerable property, also for the key "__proto__" (which a
 * plain assignment would treat as the prototype). Keys here come from input files.
 */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else obj[key] = value;
}

/** Offered request rate as the protocol wants it (req/s), see {@link parseRequestRate}. */
export interface RequestRate {
  requestRate: number | null;
  requestRateUnbounded?: true;
}

const UNBOUNDED_RATE = /^\+?(inf|infinity)$/i;

/**
 * Maps a writer's `request_rate` (req/s) to the protocol fields.
 * - finite number, or a numeric string → `{ requestRate: n }`
 * - `Infinity` (SGLang writes the bare token) or the string "inf" (vLLM) → `{ requestRate: null, requestRateUnbounded: true }`
 * - "trace" (SGLang mooncake trace replay), NaN, null, anything else → `{ requestRate: null }`; the raw row keeps the value.
 */
export function parseRequestRate(value: unknown): RequestRate {
  if (typeof value === "number") {
    if (value === Number.POSITIVE_INFINITY)
      return { requestRate: null, requestRateUnbounded: true };
    return { requestRate: Number.isFinite(value) && value >= 0 ? value : null };
  }
  if (typeof value === "string") {
    const s = value.trim();
    if (UNBOUNDED_RATE.test(s)) return { requestRate: null, requestRateUnbounded: true };
    const n = coerceNumericString(s);
    if (typeof n === "number" && Number.isFinite(n) && n >= 0) return { requestRate: n };
  }
  return { requestRate: null };
}

/**
 * Mean tokens per completed request, rounded to an integer (the protocol's lengths are integers):
 * `round(total / completed)`; null when either is missing or `completed` is 0.
 */
export function meanLength(total: unknown, completed: number | null): number | null {
  const t = finiteOrNull(total);
  if (t === null || t < 0 || completed === null || completed <= 0) return null;
  return Math.round(t / completed);
}

/** `numerator / denominator` when both are finite and the denominator is positive, else null. */
export function ratioOrNull(numerator: number | null, denominator: number | null): number | null {
  if (
    numerator === null ||
    denominator === null ||
    !Number.isFinite(numerator) ||
    !Number.isFinite(denominator) ||
    denominator <= 0
  )
    return null;
  return numerator / denominator;
}

const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/**
 * Turns a string that spells a plain decimal number ("1", "1000", "0.88", "-2", "1e3") into that
 * number; anything else (including "007", "1.0.0", "", "inf") is returned unchanged.
 * vLLM `--metadata KEY=VALUE` values arrive as strings.
 */
export function coerceNumericString(value: unknown): unknown {
  if (typeof value !== "string" || !NUMERIC.test(value)) return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** Number of failed requests in a per-request `errors` array ("" = success), or null without one. */
export function countFailed(errors: unknown): number | null {
  if (!Array.isArray(errors)) return null;
  let failed = 0;
  for (const e of errors) if (typeof e === "string" ? e.length > 0 : e != null) failed++;
  return failed;
}

const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/;
const SPACED_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/**
 * Parses a writer timestamp without zone, "YYYYmmdd-HHMMSS" (vLLM `date`) or
 * "YYYY-mm-dd HH:MM:SS", as UTC (the writer used the benchmark host's local time, which the file
 * does not record). Returns epoch ms, or null when the text is not such a valid date.
 */
export function parseZonelessDate(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = COMPACT_DATE.exec(value) ?? SPACED_DATE.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    back.getUTCHours() !== h ||
    back.getUTCMinutes() !== mi ||
    back.getUTCSeconds() !== s
  ) {
    return null;
  }
  return ms >= 0 ? ms : null;
}

const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const NON_FINITE = /^([-+]?)(nan|inf|infinity)$/i;

/**
 * A number from a JSON number or a numeric string: `"1234.56"`, `"0.00"`, `" 3e-5 "`, and the
 * spellings Python's `str(float)` and `json.dumps` use for non-finite values (`"nan"`, `"inf"`,
 * `"-inf"`, `"NaN"`, `"Infinity"`). Returns null for anything else.
 */
export function parseNumberLike(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return null;
  const s = value.trim();
  if (DECIMAL.test(s)) return Number(s);
  const m = NON_FINITE.exec(s);
  if (!m) return null;
  if ((m[2] as string).toLowerCase() === "nan") return Number.NaN;
  return m[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
}
