/**
 * The page links of a pager: the first and last page, the current one and `around` pages on each
 * side of it, with "…" where pages are skipped (`1 … 4 5 6 … 20`). Pages are 1-based; `last` ≥ 1.
 */
export function pageNumbers(current: number, last: number, around = 1): Array<number | "…"> {
  const wanted = new Set<number>([1, last]);
  for (let p = current - around; p <= current + around; p++) if (p >= 1 && p <= last) wanted.add(p);
  const sorted = [...wanted].sort((a, b) => a - b);
  const out: Array<number | "…"> = [];
  for (const p of sorted) {
    const prev = out[out.length - 1];
    // A gap of one page shows that page rather than "…".
    if (typeof prev === "number" && p - prev === 2) out.push(prev + 1);
    else if (typeof prev === "number" && p - prev > 2) out.push("…");
    out.push(p);
  }
  return out;
}

/** Number of pages for `total` items at `pageSize` per page (at least 1). */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, pageSize)));
}
