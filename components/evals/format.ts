import { formatCount, formatNonFinite } from "@/lib/format";
import type { BaselineView, CheckpointRefView, DraftSettings } from "@/lib/view-models/evals";

/**
 * Acceptance length τ with two decimals ("11.50"), the precision drafter papers report; "—" for
 * null; magnitudes from 1e6 up (only a junk baseline gets there) in exponent form ("1.00e+9").
 */
export function formatTau(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return (
    formatNonFinite(value) ?? (Math.abs(value) >= 1e6 ? value.toExponential(2) : value.toFixed(2))
  );
}

/** A 64-bit step as text: "4,000", or the exact decimal string beyond 2^53. */
export function formatStepText(step: string): string {
  const n = Number(step);
  return Number.isSafeInteger(n) ? formatCount(n) : step;
}

/** How a checkpoint is named on screen: "step 4,000", else its label, else the URI's last segment, else "unnamed checkpoint". */
export function checkpointName(c: Pick<CheckpointRefView, "step" | "label" | "uri">): string {
  if (c.step !== null) return `step ${formatStepText(c.step)}`;
  if (c.label !== null) return c.label;
  if (c.uri !== null) return c.uri.replace(/\/+$/, "").split("/").pop() || c.uri;
  return "unnamed checkpoint";
}

/** Draft settings as one line: "block_size 16 · tree ddtree-8"; "no draft settings" when empty. */
export function draftSettingsLabel(settings: DraftSettings): string {
  const entries = Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return "no draft settings";
  return entries.map(([k, v]) => `${k} ${v === null ? "null" : String(v)}`).join(" · ");
}

/** The text drawn on a baseline's reference line: "DFlash DDTree-8 · τ 12.40 ± 0.30". */
export function baselineLabel(b: Pick<BaselineView, "name" | "value" | "tolerance">): string {
  return `${b.name} · τ ${formatTau(b.value)}${b.tolerance ? ` ± ${formatTau(b.tolerance)}` : ""}`;
}
