import { formatCount, formatDuration, formatNonFinite, formatNumber, MISSING } from "@/lib/format";
import { formatMetricReading } from "@/lib/metric-labels";

/**
 * Display formatting for pipeline and host figures, on top of lib/format.ts: bytes, rates with
 * the run's own unit, percentages, ETAs and clock times. Locale-independent like lib/format.
 */

const SI_BYTES = ["B", "kB", "MB", "GB", "TB", "PB"] as const;

/** Bytes in SI units (as `df -H` and S3 consoles show them): "950 GB", "1.1 MB", "12 B". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return MISSING;
  const nf = formatNonFinite(bytes);
  if (nf !== null) return nf;
  let v = Math.abs(bytes);
  let i = 0;
  while (v >= 999.95 && i < SI_BYTES.length - 1) {
    v /= 1000;
    i++;
  }
  const text = i === 0 ? String(Math.round(v)) : formatNumber(v, v >= 100 ? 0 : 1);
  return `${bytes < 0 ? "−" : ""}${text} ${SI_BYTES[i]}`;
}

/** GPU memory from MiB (nvidia-smi's unit) in GiB: "19.5 GiB". */
export function formatMiB(mib: number | null | undefined): string {
  if (mib === null || mib === undefined) return MISSING;
  return `${formatNumber(mib / 1024, mib >= 100 * 1024 ? 0 : 1)} GiB`;
}

/** Items per second with the run's unit: "1.70 samples/s", "577.8 prompts/s"; "—" when unknown. */
export function formatRate(ratePerS: number | null | undefined, unit: string | null): string {
  if (ratePerS === null || ratePerS === undefined) return MISSING;
  return `${formatNumber(ratePerS)} ${unit ?? "items"}/s`;
}

/** A fraction 0..1 as a percent with one decimal, never rounded up to 100% before the end: "35.0%", "99.9%". */
export function formatFraction(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return MISSING;
  const pct = Math.floor(fraction * 1000) / 10;
  return `${pct.toFixed(1)}%`;
}

/** A percent reading 0..100: "42%", "7.5%". */
export function formatPct(pct: number | null | undefined): string {
  if (pct === null || pct === undefined) return MISSING;
  const nf = formatNonFinite(pct);
  if (nf !== null) return nf;
  return `${formatNumber(pct, pct < 10 && !Number.isInteger(pct) ? 1 : 0)}%`;
}

/** "ETA 6m 22s", or "ETA —" when the rate is unknown or zero. */
export function formatEta(etaS: number | null | undefined): string {
  return `ETA ${etaS === null || etaS === undefined ? MISSING : formatDuration(etaS)}`;
}

/** done / total with the unit: "350 / 1,000 samples", "350 samples" without a total. */
export function formatDoneTotal(
  done: number | null,
  total: number | null,
  unit: string | null,
): string {
  const u = unit ? ` ${unit}` : "";
  if (done === null && total === null) return MISSING;
  if (total === null) return `${formatCount(done)}${u}`;
  return `${formatCount(done ?? 0)} / ${formatCount(total)}${u}`;
}

/** Clock time for chart axes, in the browser's zone once hydrated (UTC before): "14:05". */
export function formatClock(tMs: number, timeZone?: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: timeZone ?? "UTC",
  }).format(new Date(tMs));
}

/** Clock time with seconds for tooltips: "14:05:09". */
export function formatClockSeconds(tMs: number, timeZone?: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZone: timeZone ?? "UTC",
  }).format(new Date(tMs));
}

/** A round interval for labels: "30 s", "10 min", "2 h", "1 d" (falls back to lib/format's duration). */
export function formatInterval(seconds: number): string {
  if (seconds < 60) return `${formatNumber(seconds)} s`;
  if (seconds < 3600 && seconds % 60 === 0) return `${seconds / 60} min`;
  if (seconds < 86_400 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  return formatDuration(seconds);
}

/**
 * A run's latest metrics in one line. Metrics logged at one step name it once, at the end ("loss
 * 0.984 · grad_norm 0.942 · lr 3e-4 @ step 5,000"); otherwise each names its own ("train/loss 0.25
 * @ step 20 · lr 1e-4 @ step 10"). Known keys print with label and unit ("Output 557.8 tok/s",
 * lib/metric-labels.ts), never the raw key. `steps: false` leaves steps out (a serving run's steps are
 * scrape times in unix ms, not training steps).
 */
export function formatLatestMetrics(
  metrics: ReadonlyArray<{ key: string; step: number | string; value: number }>,
  steps = true,
): string {
  const at = (step: number | string) =>
    ` @ step ${typeof step === "number" ? formatCount(step) : step}`;
  const first = metrics[0];
  const shared =
    steps &&
    first !== undefined &&
    metrics.length > 1 &&
    metrics.every((m) => m.step === first.step);
  const line = metrics
    .map((m) => `${formatMetricReading(m.key, m.value)}${steps && !shared ? at(m.step) : ""}`)
    .join(" · ");
  return shared ? `${line}${at(first.step)}` : line;
}
