/** Runs shown at once on the wall before their rows are measured; more rotate through pages. */
export const WALL_RUNS_PER_PAGE = 4;

/**
 * Packs rows into wall pages in order: a page takes rows while their heights (px) add up to at most
 * `roomPx`, at least one row and at most `maxPerPage`. A row not measured yet (`undefined`) counts as
 * the tallest measured one (or `roomPx / WALL_RUNS_PER_PAGE` before any), so a page never overflows
 * on a guess that is too small. Returns the first index of each page (`[0]` for no rows).
 */
export function packWallPages(
  heightsPx: readonly (number | undefined)[],
  roomPx: number,
  maxPerPage: number,
): number[] {
  const known = heightsPx.filter((h): h is number => h !== undefined);
  const guess = known.length > 0 ? Math.max(...known) : roomPx / WALL_RUNS_PER_PAGE;
  const starts = [0];
  let used = 0;
  let onPage = 0;
  for (let i = 0; i < heightsPx.length; i++) {
    const h = heightsPx[i] ?? guess;
    // Half a pixel of slack: row heights are fractional and their sum drifts.
    if (onPage > 0 && (used + h > roomPx + 0.5 || onPage >= maxPerPage)) {
      starts.push(i);
      used = 0;
      onPage = 0;
    }
    used += h;
    onPage += 1;
  }
  return starts;
}
