/**
 * Pure display formatting. Every formatter accepts `null`/`undefined` (shown as "—") and
 * non-finite numbers (NaN → "NaN", ±Infinity → "∞" / "−∞") so a table never prints "null" or
 * silently turns a broken measurement into 0. Output is locale-independent (en-US grouping) so the
 * server render and the browser render agree.
 */

import { INVALID_TIME } from "./iso-time";

/** What a missing value looks like everywhere. */
export const MISSING = "—";

/** What a time that cannot be shown renders as: "invalid" for a stored time that is not a date (lib/iso-time.ts), else {@link MISSING}. */
function missingTime(iso: string | null | undefined): string {
  return iso === INVALID_TIME ? "invalid" : MISSING;
}

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "NaN", "∞", "−∞" for non-finite numbers; null for finite ones. */
export function formatNonFinite(value: number): string | null {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "∞";
  if (value === Number.NEGATIVE_INFINITY) return "−∞";
  return null;
}

/** Below this magnitude (and above 0) numbers print in scientific notation: 3e-4, 1.25e-5. */
export const SCIENTIFIC_BELOW = 0.001;

/**
 * Decimals that give about four significant figures without noise:
 * ≥ 1000 → 0 ("12,412"), ≥ 10 → 1 ("577.8"), ≥ 1 → 2 ("1.23"), below 1 → three significant
 * digits ("0.123", "0.0123", "0.00123"; below {@link SCIENTIFIC_BELOW} formatNumber switches to
 * scientific notation instead).
 */
export function autoDecimals(value: number): number {
  const a = Math.abs(value);
  if (a >= 1000) return 0;
  if (a >= 10) return 1;
  if (a >= 1 || a === 0 || !Number.isFinite(a)) return 2;
  return Math.min(20, Math.max(3, 2 - Math.floor(Math.log10(a))));
}

/** Scientific notation with up to three significant digits and no trailing zeros: 3e-4, 1.25e-5, −2e-7. */
export function formatScientific(value: number): string {
  const [mantissa = "0", exponent = "0"] = value.toExponential(2).split("e");
  const m = mantissa.replace(/\.?0+$/, "");
  return `${m}e${exponent.replace(/^\+/, "")}`.replace(/^-/, "−");
}

/**
 * A number with sensible precision and thousands separators: 577.8, 12,412, 1.23, 0.123, and
 * small magnitudes keep their significant digits (0.0123, 3e-4, never "0.000"). `decimals`
 * forces a fixed number of fraction digits. Whole numbers below 1000 print without fraction
 * ("32") unless `decimals` is given.
 */
export function formatNumber(value: number | null | undefined, decimals?: number): string {
  if (value === null || value === undefined) return MISSING;
  const nf = formatNonFinite(value);
  if (nf !== null) return nf;
  if (decimals === undefined && value !== 0 && Math.abs(value) < SCIENTIFIC_BELOW)
    return formatScientific(value);
  const d = decimals ?? (Number.isInteger(value) ? 0 : autoDecimals(value));
  const out = new Intl.NumberFormat("en-US", {
    minimumFractionDigits: d,
    maximumFractionDigits: d,
  }).format(value);
  // Rounded to zero ("-0.0") is zero; otherwise print a real minus sign.
  return /^-0(\.0+)?$/.test(out) ? out.slice(1) : out.replace(/^-/, "−");
}

/** An integer count with grouping: 10,000. Non-integers are rounded. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  return formatNonFinite(value) ?? grouped.format(Math.round(value));
}

/** Joins a formatted number and its unit, leaving "—" / "NaN" / "∞" without a unit. */
function withUnit(text: string, unit: string, value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? text : `${text} ${unit}`;
}

/** Tokens per second: "577.8 tok/s", "12,412 tok/s". */
export function formatTokPerS(value: number | null | undefined): string {
  return withUnit(formatNumber(value), "tok/s", value);
}

/** Requests per second: "8.37 req/s". */
export function formatReqPerS(value: number | null | undefined): string {
  return withUnit(formatNumber(value), "req/s", value);
}

/** Milliseconds with unit: "85.7 ms", "1,234 ms" (latency tables keep ms for comparability). */
export function formatMs(value: number | null | undefined): string {
  return withUnit(formatNumber(value), "ms", value);
}

/** A latency that picks its unit: "85.7 ms" below one second, "1.23 s" from one second on. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || Math.abs(ms) < 1000)
    return formatMs(ms);
  return `${formatNumber(ms / 1000)} s`;
}

/**
 * A duration in seconds, compact: "850 ms", "12.3 s", "4m 05s", "2h 13m", "3d 4h".
 * Negative durations (clock skew) print as 0 s.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return MISSING;
  const nf = formatNonFinite(seconds);
  if (nf !== null) return nf;
  const s = Math.max(0, seconds);
  if (s === 0) return "0 s";
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${formatNumber(s, Number.isInteger(s) ? 0 : s < 10 ? 2 : 1)} s`;
  const total = Math.floor(s);
  if (total < 3600) return `${Math.floor(total / 60)}m ${pad2(total % 60)}s`;
  if (total < 86_400)
    return `${Math.floor(total / 3600)}h ${pad2(Math.floor((total % 3600) / 60))}m`;
  return `${Math.floor(total / 86_400)}d ${Math.floor((total % 86_400) / 3600)}h`;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * Time between `iso` and `nowMs`, for glancing: "just now", "12 s ago", "5 min ago", "3 h ago",
 * "2 d ago"; older than 30 days (or in the future by more than a minute) falls back to the date.
 */
export function formatRelativeTime(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return missingTime(iso);
  const diffS = Math.round((nowMs - t) / 1000);
  if (diffS < -60) return formatDate(iso);
  if (diffS < 5) return "just now";
  if (diffS < 60) return `${diffS} s ago`;
  if (diffS < 3600) return `${Math.floor(diffS / 60)} min ago`;
  if (diffS < 86_400) return `${Math.floor(diffS / 3600)} h ago`;
  if (diffS < 30 * 86_400) return `${Math.floor(diffS / 86_400)} d ago`;
  return formatDate(iso);
}

/** Seconds since `iso`, for "updated N s ago" badges: "3 s", "2 min", "4 h". */
export function formatAge(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return missingTime(iso);
  const s = Math.max(0, Math.round((nowMs - t) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/** Calendar date in UTC, "2025-05-30". */
export function formatDate(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? missingTime(iso) : new Date(t).toISOString().slice(0, 10);
}

/**
 * Absolute timestamp for hover titles: "2025-05-30 19:47:38 UTC", or in the given IANA time zone
 * ("2025-05-30 21:47:38 GMT+2") when `timeZone` is set (the browser's own zone).
 */
export function formatAbsoluteTime(iso: string, timeZone?: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return missingTime(iso);
  if (!timeZone) return `${new Date(t).toISOString().slice(0, 19).replace("T", " ")} UTC`;
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).formatToParts(new Date(t));
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")} ${get("timeZoneName")}`.trim();
}

/** Concurrency level as an axis/table label: "32"; null (unbounded) → "∞". */
export function formatConcurrency(value: number | null | undefined): string {
  return value === null || value === undefined ? "∞" : formatCount(value);
}

/** Offered request rate: "4 req/s", "0.5 req/s"; unbounded → "max". */
export function formatRequestRate(value: number | null, unbounded: boolean): string {
  if (unbounded) return "max";
  return formatReqPerS(value);
}

/** Any config value as one line of text: arrays joined with ", ", objects as compact JSON. */
export function formatConfigValue(value: unknown): string {
  if (value === null || value === undefined) return MISSING;
  if (typeof value === "number")
    return Number.isFinite(value) ? String(value) : (formatNonFinite(value) ?? String(value));
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return value.length === 0 ? '""' : value;
  if (Array.isArray(value)) return value.map(formatConfigValue).join(", ");
  return JSON.stringify(value);
}

/** Compact axis number: 950, 1.2k, 12k, 1.5M (no unit; the axis title carries it). */
export function formatCompact(value: number): string {
  const nf = formatNonFinite(value);
  if (nf !== null) return nf;
  const a = Math.abs(value);
  const trim = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (a >= 1e6) return `${trim((value / 1e6).toFixed(a >= 1e7 ? 0 : 1))}M`;
  if (a >= 1e3) return `${trim((value / 1e3).toFixed(a >= 1e4 ? 0 : 1))}k`;
  if (a >= 100 || Number.isInteger(value)) return String(Math.round(value));
  if (a < SCIENTIFIC_BELOW) return formatScientific(value);
  return trim(value.toFixed(a >= 10 ? 1 : a >= 0.01 ? 2 : 3));
}
