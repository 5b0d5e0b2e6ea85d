/**
 * Where a bar's value label goes so it never sits on a reference line (a τ baseline drawn across
 * the bars): above the bar when that is clear, else just above the line, else inside the bar's top.
 * Pure pixel arithmetic (SVG y grows downwards); the bar starts at value 0.
 */

/** Gap (px) between a label's text and the bar top or line below it. */
const GAP_PX = 5;

/** Px the text's box reaches below its baseline (the font's descent and the halo). */
const DESCENT_PX = 6;

/** True when a line at `lineY` crosses the box of the text whose baseline is at `textY` (font `fontPx` high, plus its descent and halo). */
function crosses(textY: number, lineY: number, fontPx: number): boolean {
  return lineY >= textY - fontPx - 2 && lineY <= textY + DESCENT_PX;
}

/**
 * The text baseline y (px) of the value label of a bar whose top edge is at `top` and which is
 * `height` px tall for `value` units, given reference lines at `lines` (values in the same units).
 * Candidates in order: above the bar; just above a line the default position would cross; inside
 * the bar under its top edge (when the bar is tall enough). The first that no line crosses wins;
 * when none does (lines packed tight), the default above the bar.
 */
export function barLabelY(o: {
  top: number;
  height: number;
  value: number;
  lines: readonly number[];
  fontPx?: number;
}): number {
  const fontPx = o.fontPx ?? 11;
  const above = o.top - GAP_PX;
  if (!(o.value > 0) || !(o.height > 0)) return above;
  const pxPerUnit = o.height / o.value;
  const lineYs = o.lines.map((v) => o.top + o.height - v * pxPerUnit);
  const clear = (y: number) => !lineYs.some((ly) => crosses(y, ly, fontPx));
  if (clear(above)) return above;
  const candidates = [
    ...lineYs
      .filter((ly) => crosses(above, ly, fontPx))
      .sort((a, b) => a - b)
      .map((ly) => ly - DESCENT_PX - 2),
    ...(o.height >= fontPx + 2 * GAP_PX ? [o.top + fontPx + GAP_PX - 1] : []),
  ];
  return candidates.find((y) => y - fontPx >= 0 && clear(y)) ?? above;
}
