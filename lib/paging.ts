/**
 * Client-side paging of a table's rows (pure): which rows a page holds and how the page moves when
 * the page size changes, so the components/ui/pager.tsx controls stay a thin shell.
 */

/** Page sizes a table offers when it names none. */
export const DEFAULT_PAGE_SIZES = [25, 50, 100] as const;

/** Number of pages `total` rows fill at `pageSize` a page (at least 1, also for no rows). */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, pageSize)));
}

/** `page` (0-based) clamped into the pages that exist: past the end (rows shrank) → the last page. */
export function clampPage(page: number, total: number, pageSize: number): number {
  return Math.min(Math.max(0, Math.floor(page)), pageCount(total, pageSize) - 1);
}

/** Rows `[from, to)` of page `page` (clamped), 0-based; `from === to` for no rows. */
export function pageBounds(
  page: number,
  total: number,
  pageSize: number,
): { from: number; to: number } {
  const p = clampPage(page, total, pageSize);
  return { from: Math.min(total, p * pageSize), to: Math.min(total, (p + 1) * pageSize) };
}

/** The page that, after switching from `oldSize` to `newSize` rows a page, still shows the first row of page `page`. */
export function pageAfterResize(page: number, oldSize: number, newSize: number): number {
  return Math.floor((page * oldSize) / Math.max(1, newSize));
}
