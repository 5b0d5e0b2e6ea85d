/**
 * One unit and one precision per column or axis. A table column or chart axis picks its unit from
 * all of its values once (the header or axis title names it), and every cell prints a bare number
 * in that unit: "Duration (h:mm)" over "0:46", "13:00", "24:00" instead of "46.2 s", "13h 00m",
 * "1d 0h" in one column; "Peak (tok/s)" over "941.0", "958.6"; "Size (GB)" over "1,005.4",
 * "1,000.0" instead of "1005.4 GB" beside "1.0 TB". Pure and locale-independent like lib/format.
 */

import { autoDecimals, formatNonFinite, formatNumber, MISSING } from "./format";

/** How a duration column prints: plain ms or s, or a clock "m:ss", "h:mm", or "d h" ("1d 04h"). */
export type DurationUnit = "ms" | "s" | "m:ss" | "h:mm" | "d h";

function finiteOf(values: Iterable<number | null | undefined>): number[] {
  const out: number[] = [];
  for (const v of values) if (typeof v === "number" && Number.isFinite(v)) out.push(v);
  return out;
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The unit of a duration column from its values in seconds: by the largest value, so every cell
 * fits the column's format — under 1 s "ms", under 2 min "s", under 1 h "m:ss", else "h:mm" (hours
 * grow past 24, so a 46 s run beside a day-long one reads "0:01" and "24:00"); "d h" only when most
 * values (the median) are a day or longer. Null, NaN and ±∞ are ignored; no value gives "s".
 */
export function pickDurationUnit(valuesS: Iterable<number | null | undefined>): DurationUnit {
  const finite = finiteOf(valuesS).map((v) => Math.max(0, v));
  if (finite.length === 0) return "s";
  const sorted = finite.sort((a, b) => a - b);
  const max = sorted[sorted.length - 1]!;
  if (median(sorted) >= 86_400) return "d h";
  if (max < 1) return "ms";
  if (max < 120) return "s";
  if (max < 3600) return "m:ss";
  return "h:mm";
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * A duration (seconds) as a bare cell in `unit`: "850" (ms), "46.2" (s, `decimals` fixed, one by
 * default), "29:00" (m:ss), "13:00" (h:mm, hours grow past 24), "1d 04h" (d h). Negative values
 * (clock skew) print as 0; null as "—"; NaN / ±∞ as "NaN" / "∞".
 */
export function formatDurationIn(
  seconds: number | null | undefined,
  unit: DurationUnit,
  decimals = 1,
): string {
  if (seconds === null || seconds === undefined) return MISSING;
  const nf = formatNonFinite(seconds);
  if (nf !== null) return nf;
  const s = Math.max(0, seconds);
  switch (unit) {
    case "ms":
      return formatNumber(Math.round(s * 1000), 0);
    case "s":
      return formatNumber(s, decimals);
    case "m:ss": {
      const t = Math.round(s);
      return `${formatNumber(Math.floor(t / 60), 0)}:${pad2(t % 60)}`;
    }
    case "h:mm": {
      const t = Math.round(s / 60);
      return `${formatNumber(Math.floor(t / 60), 0)}:${pad2(t % 60)}`;
    }
    case "d h": {
      const t = Math.round(s / 3600);
      return `${formatNumber(Math.floor(t / 24), 0)}d ${pad2(t % 24)}h`;
    }
  }
}

/** A column header with its unit: `withUnitHeader("Duration", "h:mm")` → "Duration (h:mm)". */
export function withUnitHeader(label: string, unit: string): string {
  return `${label} (${unit})`;
}

/**
 * One number of decimals for a whole column from its values: those {@link autoDecimals} gives the
 * column's largest magnitude, and 0 when every value is a whole number. So "941.0" sits under
 * "958.6" and "12,412" beside "9,950". No finite value gives 0.
 */
export function columnDecimals(values: Iterable<number | null | undefined>): number {
  const finite = finiteOf(values);
  if (finite.length === 0 || finite.every(Number.isInteger)) return 0;
  return autoDecimals(Math.max(...finite.map(Math.abs)));
}

/** A formatter for one column: every cell with {@link columnDecimals} of all `values`, grouped ("12,412.0"). */
export function columnNumberFormat(
  values: Iterable<number | null | undefined>,
): (v: number | null | undefined) => string {
  const d = columnDecimals(values);
  return (v) => formatNumber(v, d);
}

/** SI byte units, as `df -H` and S3 consoles show them. */
export type ByteUnit = "B" | "kB" | "MB" | "GB" | "TB" | "PB";
const BYTE_UNITS: readonly ByteUnit[] = ["B", "kB", "MB", "GB", "TB", "PB"];

/**
 * The byte unit of a column from its values: the largest SI unit in which the column's smallest
 * non-zero value is still at least 1, so no cell reads "0.0" and 1.0 TB beside 1,005.4 GB both
 * print in GB ("1,000", "1,005"). No value gives "B".
 */
export function pickByteUnit(valuesBytes: Iterable<number | null | undefined>): ByteUnit {
  const positive = finiteOf(valuesBytes)
    .map(Math.abs)
    .filter((v) => v > 0);
  if (positive.length === 0) return "B";
  let m = Math.min(...positive);
  let i = 0;
  while (m >= 999.95 && i < BYTE_UNITS.length - 1) {
    m /= 1000;
    i++;
  }
  return BYTE_UNITS[i]!;
}

/** `bytes` divided into `unit` (1 GB = 1e9 bytes); null stays null. */
export function bytesIn(bytes: number | null | undefined, unit: ByteUnit): number | null {
  if (bytes === null || bytes === undefined) return null;
  return bytes / 1000 ** BYTE_UNITS.indexOf(unit);
}

/**
 * A formatter for one byte column: every cell a bare number in the column's unit (from
 * {@link pickByteUnit}) with one precision for the column, enough for its smallest value to keep
 * three digits: "1.00" beside "1.01" (TB), "12.5", "998" beside "1,005" (GB).
 */
export function byteColumnFormat(valuesBytes: readonly (number | null | undefined)[]): {
  unit: ByteUnit;
  format: (bytes: number | null | undefined) => string;
} {
  const unit = pickByteUnit(valuesBytes);
  const positive = finiteOf(valuesBytes.map((b) => bytesIn(b, unit)))
    .map(Math.abs)
    .filter((v) => v > 0);
  const least = positive.length === 0 ? 0 : Math.min(...positive);
  const d = unit === "B" || least >= 100 ? 0 : least >= 10 ? 1 : 2;
  return { unit, format: (b) => formatNumber(bytesIn(b, unit), d) };
}
