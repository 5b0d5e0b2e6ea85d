/** Measuring and printing figures for the bench scenarios: timed calls, percentiles, number formats, tables. */

/** Times `fn` `rounds` times after one warm-up call; returns the sorted durations (ms). */
export async function timeCalls(rounds: number, fn: () => Promise<unknown>): Promise<Float64Array> {
  await fn();
  const ms = new Float64Array(rounds);
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    ms[i] = performance.now() - t0;
  }
  return ms.sort();
}

/** The `q` quantile (0..1, nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** A count for a table: rounded, thousands separated; `n/a` when not finite. */
export const fmtInt = (n: number) =>
  Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a";
/** A figure with `digits` decimals, thousands separated; `n/a` when not finite. */
export const fmt = (n: number, digits = 1) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a";
/** KiB as whole MiB (`512 MiB`); `n/a` when unknown. */
export const mib = (kb: number | undefined) =>
  kb === undefined || !Number.isFinite(kb) ? "n/a" : `${fmt(kb / 1024, 0)} MiB`;

/** Prints a two-column table of `[label, figure]` rows under `title` (null rows are left out). */
export function printTable(
  title: string,
  rows: Array<[string, string] | null>,
  out: (line: string) => void = console.log,
): void {
  const shown = rows.filter((r): r is [string, string] => r !== null);
  const w = Math.max(...shown.map(([k]) => k.length));
  const v = Math.max(...shown.map(([, val]) => val.length));
  const line = `+${"-".repeat(w + 2)}+${"-".repeat(v + 2)}+`;
  out(`\n${title}`);
  out(line);
  for (const [k, val] of shown) out(`| ${k.padEnd(w)} | ${val.padStart(v)} |`);
  out(line);
}
