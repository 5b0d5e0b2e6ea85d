import type { BaselineView } from "@/lib/view-models/evals";

import { formatTau } from "./format";

/**
 * Rules for reference baselines on τ figures, shared by /evals and run pages: which baselines a run
 * is compared with, the signed delta, and which baselines a chart can draw without flattening its
 * data. Pure functions (no React), unit-tested in reference.test.ts.
 */

/** τ minus a baseline's value: `delta` "+0.40" / "−0.90", `where` "above", "below" or "within ± 0.30". */
export function baselineDelta(tau: number, b: BaselineView): { delta: string; where: string } {
  const d = tau - b.value;
  const delta = `${d >= 0 ? "+" : "−"}${formatTau(Math.abs(d))}`;
  if (b.tolerance !== null && Math.abs(d) <= b.tolerance)
    return { delta, where: `within ± ${formatTau(b.tolerance)}` };
  return { delta, where: d >= 0 ? "above" : "below" };
}

/**
 * The baselines a run's τ is compared with ("vs" figures): those whose dataset is one the run's
 * results name; when none matches, the dataset-less ones. Every one of them, ordered by name:
 * the caller shows a delta to each (no baseline is picked by its value). Empty when none applies.
 */
export function comparableBaselines(
  baselines: readonly BaselineView[],
  datasets: readonly string[],
): BaselineView[] {
  const byName = (a: BaselineView, b: BaselineView) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id;
  const matching = baselines.filter((b) => b.dataset !== null && datasets.includes(b.dataset));
  return (matching.length > 0 ? matching : baselines.filter((b) => b.dataset === null)).sort(
    byName,
  );
}

/** A baseline's category: its `settings.category` when a non-empty string ("coding"); null for a baseline of every category. */
export function baselineCategory(b: BaselineView): string | null {
  const c = b.settings.category;
  return typeof c === "string" && c.length > 0 ? c : null;
}

/** One "vs baseline" figure: the baseline and the τ it is compared with. */
export interface BaselineComparison {
  baseline: BaselineView;
  /** τ compared: over all categories in scope, or of the baseline's own category. */
  tau: number;
  /** Set when `tau` is one category's τ (the baseline's), not the figure the row shows: label it. */
  category: string | null;
}

/**
 * Pairs each baseline with a τ of the same category, so an all-category τ is never compared with a
 * coding-only reference. `all` is the τ over every category in `scope` (a category filter, or null
 * for all); `byCategory` the per-category τ at the same checkpoint. A baseline of every category is
 * compared with `all`; a baseline of category C with `all` when `scope` is C, else with C's τ from
 * `byCategory` (labelled with C), and left out when C was not scored. Order of `baselines` kept.
 */
export function compareWithBaselines(
  baselines: readonly BaselineView[],
  all: number,
  byCategory: ReadonlyArray<{ category: string | null; tau: number }>,
  scope: string | null = null,
): BaselineComparison[] {
  const out: BaselineComparison[] = [];
  for (const b of baselines) {
    const c = baselineCategory(b);
    if (c === null || c === scope) out.push({ baseline: b, tau: all, category: null });
    else if (scope === null) {
      const own = byCategory.find((x) => x.category === c);
      if (own && Number.isFinite(own.tau)) out.push({ baseline: b, tau: own.tau, category: c });
    }
  }
  return out;
}

/** How far outside the data a baseline may lie and still set the axis: this many data spans each side. */
export const OFF_SCALE_SPANS = 2;
/** Smallest span (τ units) the window is built on, so an early run at τ 1.5 still shows a 12.4 reference. */
export const MIN_TAU_SPAN = 10;

/** Baselines split by whether a τ chart can draw them, and the values its y axis must cover. */
export interface TauScale {
  /** Baselines whose line is drawn (value inside the window). */
  drawn: BaselineView[];
  /** Ids of drawn baselines whose ± band reaches beyond the window (band clipped at the plot edge). */
  bandClipped: Set<number>;
  /** Baselines left off the chart (value outside the window); name them in the legend. */
  offScale: BaselineView[];
  /** Data values plus the drawn baselines' values and in-window band edges: feed the axis. */
  axisValues: number[];
}

/**
 * Which baselines a chart of `data` (finite τ values) can draw: a baseline sets the y axis only
 * when its value lies within {@link OFF_SCALE_SPANS} spans of the data, the span being the larger
 * of the data range, the largest |value| and {@link MIN_TAU_SPAN}; band edges beyond that window are
 * clipped. So one absurd baseline (1e308, or a ± 1e300 band) never flattens the lines. Without data
 * every baseline is drawn.
 */
export function tauScale(data: readonly number[], baselines: readonly BaselineView[]): TauScale {
  const values = data.filter((v) => Number.isFinite(v));
  const axisValues = [...values];
  const bandClipped = new Set<number>();
  if (values.length === 0) {
    for (const b of baselines)
      axisValues.push(b.value - (b.tolerance ?? 0), b.value + (b.tolerance ?? 0));
    return {
      drawn: [...baselines],
      bandClipped,
      offScale: [],
      axisValues: axisValues.filter((v) => Number.isFinite(v)),
    };
  }
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = Math.max(hi - lo, Math.abs(lo), Math.abs(hi), MIN_TAU_SPAN);
  const inside = (v: number) =>
    Number.isFinite(v) && v >= lo - OFF_SCALE_SPANS * span && v <= hi + OFF_SCALE_SPANS * span;
  const drawn: BaselineView[] = [];
  const offScale: BaselineView[] = [];
  for (const b of baselines) {
    if (!inside(b.value)) {
      offScale.push(b);
      continue;
    }
    drawn.push(b);
    axisValues.push(b.value);
    if (b.tolerance) {
      for (const edge of [b.value - b.tolerance, b.value + b.tolerance]) {
        if (inside(edge)) axisValues.push(edge);
        else bandClipped.add(b.id);
      }
    }
  }
  return { drawn, bandClipped, offScale, axisValues };
}

/**
 * Splits `baselines` for a chart of the τ over every prompt in `scope` (a category filter, or null
 * for all): `matching` are drawn against that τ (no category, or the scope's own category);
 * `otherCategory` hold for one other category only ("coding-only 12.4") and must never be drawn
 * against an all-prompts line: the caller names them as not drawn.
 */
export function baselinesForScope(
  baselines: readonly BaselineView[],
  scope: string | null,
): { matching: BaselineView[]; otherCategory: BaselineView[] } {
  const matching: BaselineView[] = [];
  const otherCategory: BaselineView[] = [];
  for (const b of baselines) {
    const c = baselineCategory(b);
    (c === null || c === scope ? matching : otherCategory).push(b);
  }
  return { matching, otherCategory };
}
